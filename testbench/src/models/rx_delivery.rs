//! Reference model of `RxDelivery`, at transaction level: the staging buffer's commit and
//! rollback, the VC demultiplexer, and one [`PacketBufferModel`] per VC.
//!
//! Flits enter the per-VC models when their LTP commits (earlier than in the hardware, which
//! needs a few cycles to move them); the bench pops a VC's model when the hardware delivers on
//! that VC, so the order and content of every delivered flit are checked exactly. With credits
//! respected no buffer is ever full, so the outcome does not depend on that timing. Drop counts
//! per reason (the hardware's drop events, counted) and the error record (`err_reason`,
//! `err_vc`) are the hardware's once everything has drained.
use crate::models::packet_buffer::{Counters, PacketBufferModel};
use hdl::formats::{flit, header, ControlCode};
use hdl::llp::packet_buffer::REASON_BAD_VC;

/// What the demultiplexer does with a flit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// A head: VC from its header; forwarded there.
    Head(u8),
    /// A VlMrkr: VC from its control field; consumed.
    Marker(u8),
    /// Any other flit: stays on the current VC.
    Same,
}

/// How the demultiplexer reads a flit.
pub fn route(w: u128) -> Route {
    let bit = |b: usize| (w >> b) & 1 == 1;
    if bit(flit::TYPE_BIT) {
        Route::Same
    } else if bit(flit::HEAD_BIT) {
        Route::Head(header::VC.get(w) as u8)
    } else if !bit(flit::TAIL_BIT) && flit::CODE.get(w) as u8 == ControlCode::VlMrkr.code() {
        Route::Marker(flit::CTRL_VC.get(w) as u8)
    } else {
        Route::Same
    }
}

/// Transaction model of the receive delivery path.
#[derive(Clone, Debug)]
pub struct RxDeliveryModel {
    /// Flits written since the last commit.
    pub pending: Vec<u128>,
    /// Current VC (>= the VC count: dropping).
    pub cur: u8,
    /// Heads and VlMrkrs naming a VC out of range.
    pub bad_vc: u64,
    /// One packet buffer per VC.
    pub bufs: Vec<PacketBufferModel>,
    /// Reason and VC of the most recent drop (the hardware's error record).
    pub last: (u8, usize),
}

impl RxDeliveryModel {
    /// `vcs` VCs of `depth` slots accepting packets of up to `max_len` flits.
    pub fn new(vcs: usize, depth: usize, max_len: usize) -> Self {
        Self {
            pending: vec![],
            cur: 0,
            bad_vc: 0,
            bufs: (0..vcs)
                .map(|_| PacketBufferModel::new(depth, max_len))
                .collect(),
            last: (0, 0),
        }
    }

    /// Reset: staging and every VC buffer empty, counts and record cleared, current VC 0.
    pub fn reset(&mut self) {
        *self = Self::new(
            self.bufs.len(),
            self.bufs[0].depth(),
            self.bufs[0].max_len(),
        );
    }

    /// One clock edge of the write side: `commit`/`rollback` of the flits of earlier cycles,
    /// then `write` joins the LTP in progress. Returns the (VC, flit) pairs delivered to the
    /// packet buffers by a commit, in order.
    pub fn edge(
        &mut self,
        write: Option<u128>,
        commit: bool,
        rollback: bool,
    ) -> Vec<(usize, u128)> {
        assert!(!(commit && rollback), "model: commit and rollback together");
        let mut out = vec![];
        if rollback {
            self.pending.clear();
        }
        if commit {
            for w in std::mem::take(&mut self.pending) {
                if let Some(v) = self.demux(w) {
                    out.push((v, w));
                }
            }
        }
        if let Some(w) = write {
            self.pending.push(w);
        }
        out
    }

    /// Routes one committed flit; returns the VC it was forwarded to.
    fn demux(&mut self, w: u128) -> Option<usize> {
        let vcs = self.bufs.len();
        let forward = match route(w) {
            Route::Head(v) | Route::Marker(v) => {
                self.cur = v;
                if v as usize >= vcs {
                    self.bad_vc += 1;
                    self.last = (REASON_BAD_VC, v as usize);
                }
                !matches!(route(w), Route::Marker(_))
            }
            Route::Same => true,
        };
        let v = self.cur as usize;
        if !forward || v >= vcs {
            return None;
        }
        self.bufs[v].edge(Some(w), false);
        if self.bufs[v].drops != 0 {
            // Of a head's two drops the hardware records its own, the later one recorded.
            self.last = (self.bufs[v].err.2, v);
        }
        Some(v)
    }

    /// Drop counts summed over the VCs.
    pub fn totals(&self) -> Counters {
        let mut t = [0u64; 5];
        for b in &self.bufs {
            for (t, c) in t.iter_mut().zip(b.counters) {
                *t += c;
            }
        }
        t
    }
}
