//! Reference model of `CommitStore`, exact per clock edge: after every edge, the hardware's
//! `source.valid` is "some committed entry not yet read" (entries committed with their write,
//! `commit_with_write`, one edge later than that), `source.data` the oldest one, and
//! `overflow`, `full`, `full_after_rollback`, `free`, `uncommitted` the model's.
use std::collections::VecDeque;

/// Transaction model of the commit/rollback store.
#[derive(Clone, Debug)]
pub struct CommitStoreModel {
    depth: usize,
    /// Committed entries not yet read, oldest first.
    pub committed: VecDeque<u128>,
    /// Of `committed`, how many at the back were committed with their write on the last edge
    /// (not offered before the next edge).
    pub fresh: usize,
    /// Entries written since the last commit.
    pub pending: Vec<u128>,
    /// Sticky overflow.
    pub overflow: bool,
}

impl CommitStoreModel {
    /// An empty FIFO of `depth` slots.
    pub fn new(depth: usize) -> Self {
        Self {
            depth,
            committed: VecDeque::new(),
            fresh: 0,
            pending: vec![],
            overflow: false,
        }
    }

    /// Reset: empty, overflow cleared (the block's documented reset).
    pub fn reset(&mut self) {
        *self = Self::new(self.depth);
    }

    /// Slots a write in this cycle would find in use (a rollback in the same cycle frees the
    /// pending ones first; a read in the same cycle does not count).
    pub fn used(&self, rollback: bool) -> usize {
        self.committed.len() + if rollback { 0 } else { self.pending.len() }
    }

    /// Would a write in this cycle be dropped?
    pub fn full(&self, rollback: bool) -> bool {
        self.used(rollback) >= self.depth
    }

    /// Committed entries the hardware offers on `source` (after this edge's effects).
    pub fn offered(&self) -> usize {
        self.committed.len() - self.fresh
    }

    /// Slots holding no entry.
    pub fn free(&self) -> usize {
        self.depth - self.used(false)
    }

    /// One clock edge: `commit`/`rollback` act on the entries of earlier cycles, then `write`
    /// is stored (or dropped if full) and, with `commit_with_write`, committed with every
    /// pending entry, then the oldest committed entry is read if `pop` (returned). Panics on a
    /// read of nothing offered, or on two of `commit`, `rollback`, `commit_with_write`
    /// together.
    pub fn edge(
        &mut self,
        write: Option<u128>,
        commit: bool,
        commit_with_write: bool,
        rollback: bool,
        pop: bool,
    ) -> Option<u128> {
        assert!(
            [commit, commit_with_write, rollback]
                .iter()
                .filter(|x| **x)
                .count()
                <= 1,
            "model: two of commit, commit_with_write, rollback together"
        );
        assert!(
            !pop || self.offered() > 0,
            "model: read with nothing offered"
        );
        self.fresh = 0;
        let full = self.full(rollback);
        if rollback {
            self.pending.clear();
        }
        if commit {
            self.committed.extend(self.pending.drain(..));
        }
        if let Some(w) = write {
            if full {
                self.overflow = true;
            } else {
                self.pending.push(w);
            }
        }
        if commit_with_write {
            // The entries of earlier cycles become visible after this edge's, this cycle's
            // write (if stored) one edge later; the hardware shows none of them before then.
            self.fresh = self.pending.len();
            self.committed.extend(self.pending.drain(..));
        }
        if pop {
            let v = self.committed.pop_front();
            assert!(v.is_some(), "model: read with nothing committed");
            v
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_cycle_write_belongs_to_the_next_group() {
        let mut m = CommitStoreModel::new(4);
        m.edge(Some(1), false, false, false, false);
        m.edge(Some(2), true, false, false, false);
        assert_eq!(m.committed, [1]);
        m.edge(Some(3), false, false, true, false);
        assert_eq!(m.pending, [3]);
        m.edge(None, true, false, false, false);
        assert_eq!(m.committed, [1, 3]);
        m.edge(Some(4), false, false, false, false);
        m.edge(Some(5), false, false, false, false);
        m.edge(Some(6), false, false, false, false);
        assert!(m.overflow);
        assert_eq!(m.pending, [4, 5]);
    }
}
