//! Reference model of the DAMQ input unit (`nrc::port::Damq`): per-VC queues of flits, the
//! packet checks, the credit policy, and the events.
//!
//! Exact per clock edge at every output: before each edge, `ready`, `waiting` and `fronts`
//! are the queues' fronts (a flit stored on an edge is readable from the next cycle, whether
//! it went to a front register or the RAM), `returned` and `events` the values the hardware's
//! registers hold. [`DamqModel::edge`] applies one edge: the read, the arrival, the credits.
use hdl::formats::{flit, ControlCode};
use nrc::port::event;
use std::collections::VecDeque;

use super::packet_buffer::{classify, FlitClass};

/// A VC's packet check state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    Idle,
    /// A packet is open with this many flits still to come (its tail included).
    Open(u32),
    /// Dropping the rest of a bad packet, up to its tail.
    Dropping,
}

/// The whole input unit, at its ports.
#[derive(Clone, Debug)]
pub struct DamqModel {
    vcs: usize,
    reserve: usize,
    capacity: usize,
    max_len: usize,
    /// Per VC: the flits stored, front first.
    pub queues: Vec<VecDeque<u128>>,
    checks: Vec<Check>,
    /// Per VC: credits the sender holds (the receiver's count).
    pub credits: Vec<usize>,
    /// The `returned` register: bit `v` returns a credit of VC `v` in this cycle.
    pub returned: u32,
    /// The `events` register.
    pub events: u32,
    /// Bit `v`: a flit of VC `v` left on the last edge; the credit policy counts its slot as
    /// held until the next edge (the lender's `left` is registered).
    late: u32,
}

/// The TailBadPkt the unit stores in place of `w`: its low 32 bits kept in `orig`.
pub fn marker_for(w: u128) -> u128 {
    let m = flit::CODE.set(0, ControlCode::TailBadPkt.code() as u128);
    flit::CTRL_ORIG.set(m, flit::CTRL_ORIG.get(w))
}

impl DamqModel {
    /// A unit of `vcs` VCs handing out `capacity` slots, `reserve` per VC, packets of up to
    /// `max_len` flits, just after reset.
    pub fn new(vcs: usize, capacity: usize, reserve: usize, max_len: usize) -> Self {
        Self {
            vcs,
            reserve,
            capacity,
            max_len,
            queues: vec![VecDeque::new(); vcs],
            checks: vec![Check::Idle; vcs],
            credits: vec![reserve; vcs],
            returned: 0,
            events: 0,
            late: 0,
        }
    }

    /// Synchronous reset.
    pub fn reset(&mut self) {
        *self = Self::new(self.vcs, self.capacity, self.reserve, self.max_len);
    }

    /// Slots VC `v` holds as the credit policy counts them: stored flits, credits, and a flit
    /// that left on the last edge.
    pub fn held(&self, v: usize) -> usize {
        self.queues[v].len() + self.credits[v] + ((self.late >> v) & 1) as usize
    }

    /// Slots handed out, over every VC (as [`DamqModel::held`]).
    pub fn held_total(&self) -> usize {
        (0..self.vcs).map(|v| self.held(v)).sum()
    }

    /// Slots lent beyond the reservations.
    pub fn lent(&self) -> usize {
        (0..self.vcs)
            .map(|v| self.held(v).saturating_sub(self.reserve))
            .sum()
    }

    /// The pool that may be lent.
    pub fn pool(&self) -> usize {
        self.capacity - self.vcs * self.reserve
    }

    /// VC `v` has a flit to read.
    pub fn ready(&self, v: usize) -> bool {
        !self.queues[v].is_empty()
    }

    /// VC `v`'s front is a head.
    pub fn waiting(&self, v: usize) -> bool {
        self.queues[v]
            .front()
            .is_some_and(|&w| matches!(classify(w), FlitClass::Head(_)))
    }

    /// The credits the policy returns on this edge (the next `returned`).
    fn give(&self) -> u32 {
        // `lent` is fixed for the cycle (from the registered counts): at most one VC borrows.
        let lent = self.lent();
        let mut give = 0;
        let mut asked = false;
        for v in 0..self.vcs {
            let held = self.held(v);
            let short = self.credits[v] < self.reserve;
            let within = held < self.reserve;
            if short && (within || (lent < self.pool() && !asked)) {
                give |= 1 << v;
            }
            if short && !within {
                asked = true;
            }
        }
        give
    }

    /// One clock edge: `arrival` = (vc, flit) on the channel, `read` = the VC the switch
    /// reads. Returns the flit that moved out, if the read was of a ready VC.
    pub fn edge(&mut self, arrival: Option<(usize, u128)>, read: Option<usize>) -> Option<u128> {
        let give = self.give();
        let out = read.and_then(|r| {
            if r < self.vcs {
                self.queues[r].pop_front()
            } else {
                None
            }
        });
        let mut ev = None;
        if let Some((v, w)) = arrival {
            if v >= self.vcs {
                ev = Some(event::BAD_VC);
            } else if self.credits[v] == 0 {
                ev = Some(event::NO_CREDIT);
            } else {
                self.credits[v] -= 1;
                let (store, e) = self.check(v, w);
                ev = e;
                if let Some(s) = store {
                    self.queues[v].push_back(s);
                }
            }
        }
        for v in 0..self.vcs {
            self.credits[v] += (give >> v) as usize & 1;
        }
        self.returned = give;
        self.events = ev.map_or(0, |e| 1 << e);
        self.late = match (read, &out) {
            (Some(r), Some(_)) => 1 << r,
            _ => 0,
        };
        out
    }

    /// The packet check of flit `w` on VC `v` (which has a credit): what to store, which event.
    fn check(&mut self, v: usize, w: u128) -> (Option<u128>, Option<usize>) {
        let state = self.checks[v];
        let open = matches!(state, Check::Open(_));
        let dropping = state == Check::Dropping;
        let (store, ev, next) = match classify(w) {
            FlitClass::Head(len) => {
                if open {
                    (
                        Some(marker_for(w)),
                        Some(event::HEAD_IN_PACKET),
                        Check::Dropping,
                    )
                } else if len < 2 || len as usize > self.max_len {
                    (None, Some(event::BAD_LEN), Check::Dropping)
                } else {
                    (Some(w), None, Check::Open(len as u32 - 1))
                }
            }
            FlitClass::Body => match state {
                Check::Open(1) => (Some(marker_for(w)), Some(event::TOO_LONG), Check::Dropping),
                Check::Open(n) => (Some(w), None, Check::Open(n - 1)),
                Check::Dropping => (None, None, Check::Dropping),
                Check::Idle => (None, Some(event::NO_HEAD), Check::Dropping),
            },
            FlitClass::Tail => match state {
                Check::Open(1) => (Some(w), None, Check::Idle),
                Check::Open(_) => (Some(marker_for(w)), Some(event::TOO_SHORT), Check::Idle),
                Check::Dropping => (None, None, Check::Idle),
                Check::Idle => (None, Some(event::NO_HEAD), Check::Idle),
            },
            _ => (
                open.then(|| marker_for(w)),
                (!dropping).then_some(event::BAD_FLIT),
                Check::Dropping,
            ),
        };
        self.checks[v] = next;
        (store, ev)
    }
}
