//! Reference model of a router port's input side (`nrc::port::InputPort`): the DAMQ
//! ([`DamqModel`]), the route lookups, the per-VC packet state, the VC policy
//! ([`hdl::vc_policy`]), the head rewrite, drops and the management packets' path to the agent.
//!
//! Exact per clock edge at every output. A cycle is modelled in the hardware's order:
//! [`InputPortModel::offer`] is what the switch sees before it grants (it depends on the route
//! answered in this cycle), [`InputPortModel::cycle`] takes the cycle's inputs (arrival, route
//! answer, grant, `to_agent.ready`), returns every other output of the cycle and applies the
//! edge. The model keeps the flits as they arrived and each head's arrival cycle, so the delay
//! it expects is the definition (old delay + cycles from input channel to output channel,
//! saturating at 4095), not the hardware's stamp arithmetic.
use super::damq::DamqModel;
use super::packet_buffer::{classify, FlitClass};
use hdl::formats::header::{DELAY, DST, KIND, LEN, RSVD, VC};
use hdl::formats::PacketKind;
use hdl::vc_policy::VcPolicy;
use nrc::port::event;
use std::collections::VecDeque;

/// The route the scripted route unit answers in a cycle (for the lookup of the cycle before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteAnswer {
    /// Output port number (ignored with `none`).
    pub port: usize,
    /// No route.
    pub none: bool,
}

/// One VC's offer to the switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct VcOffer {
    /// It can move if granted.
    pub ready: bool,
    /// Its front is a head.
    pub head: bool,
    /// Its front ends its packet.
    pub last: bool,
    /// Output port and VC (meaningful when ready).
    pub port: usize,
    /// Output VC.
    pub out_vc: usize,
    /// The front's `len` (meaningful for a ready head).
    pub len: usize,
}

/// The inputs of one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct Inputs {
    /// (VC, flit) on the channel.
    pub arrival: Option<(usize, u128)>,
    /// The route unit's answer.
    pub route: Option<RouteAnswer>,
    /// The VC the switch grants (a ready one).
    pub grant: Option<usize>,
    /// `to_agent.ready`.
    pub agent_ready: bool,
}

/// The outputs of one cycle besides the offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Outputs {
    /// The lookup sent to the route unit: (VC, flit as stored; the stamp bits aside).
    pub lookup: Option<(usize, u128)>,
    /// The granted flit as it leaves (rewritten).
    pub switch_flit: Option<u128>,
    /// `to_agent`: (flit, last) when valid.
    pub to_agent: Option<(u128, bool)>,
    /// `events`, `fault`, `queued`.
    pub events: u32,
    /// `fault`.
    pub fault: bool,
    /// `queued`.
    pub queued: u32,
    /// The VC read by a side read (drop or agent), for statistics.
    pub side: Option<(usize, bool)>,
}

/// A whole input port, at its ports.
#[derive(Clone, Debug)]
pub struct InputPortModel {
    vcs: usize,
    mgmt_vc: usize,
    policy: VcPolicy,
    down_ports: u64,
    /// The route stage (`router.route_stage`): a route answered now only registers.
    route_stage: bool,
    /// The DAMQ (flits as they arrived).
    pub damq: DamqModel,
    /// Per VC: the arrival cycle of each stored head, in order.
    arrivals: Vec<VecDeque<u64>>,
    /// The lookup of the previous cycle: (VC, kind, dst).
    pending: Option<(usize, u128, u64)>,
    /// Per VC: the front head's route (port, out VC), the packet in progress's route.
    routed: Vec<Option<(usize, usize)>>,
    moving: Vec<Option<(usize, usize)>>,
    dropping: Vec<bool>,
    managing: Vec<bool>,
    agent: Option<(u128, bool)>,
    own_events: u32,
    cycle: u64,
}

fn is_head(w: u128) -> bool {
    matches!(classify(w), FlitClass::Head(_))
}

/// Ends its packet: a tail or a TailBadPkt (the only other flit the DAMQ stores).
fn is_last(w: u128) -> bool {
    !is_head(w) && classify(w) != FlitClass::Body
}

fn kind_of(w: u128) -> u128 {
    KIND.get(w)
}

impl InputPortModel {
    /// A port of `vcs` VCs (DAMQ `capacity`, `reserve`, `max_len`), management on `mgmt_vc`,
    /// VC `policy`, down ports `down_ports`, just after reset.
    pub fn new(
        vcs: usize,
        capacity: usize,
        reserve: usize,
        max_len: usize,
        mgmt_vc: usize,
        policy: VcPolicy,
        down_ports: u64,
    ) -> Self {
        Self {
            vcs,
            mgmt_vc,
            policy,
            down_ports,
            route_stage: false,
            damq: DamqModel::new(vcs, capacity, reserve, max_len),
            arrivals: vec![VecDeque::new(); vcs],
            pending: None,
            routed: vec![None; vcs],
            moving: vec![None; vcs],
            dropping: vec![false; vcs],
            managing: vec![false; vcs],
            agent: None,
            own_events: 0,
            cycle: 0,
        }
    }

    /// The same port with the route stage on or off (`router.route_stage`; off after `new`).
    pub fn with_route_stage(mut self, on: bool) -> Self {
        self.route_stage = on;
        self
    }

    /// Synchronous reset (the cycle count goes on: only differences matter).
    pub fn reset(&mut self) {
        let cycle = self.cycle;
        self.damq.reset();
        *self = Self {
            damq: self.damq.clone(),
            cycle,
            route_stage: self.route_stage,
            ..Self::new(
                self.vcs,
                0,
                0,
                0,
                self.mgmt_vc,
                self.policy,
                self.down_ports,
            )
        };
    }

    fn front(&self, v: usize) -> Option<u128> {
        self.damq.queues[v].front().copied()
    }

    fn mgmt_head(&self, v: usize) -> bool {
        self.front(v)
            .is_some_and(|f| is_head(f) && kind_of(f) == PacketKind::Mgmt.code() as u128)
    }

    /// The route answered now belongs to VC `v`.
    fn route_here(&self, v: usize, route: Option<RouteAnswer>) -> Option<RouteAnswer> {
        match self.pending {
            Some((pv, _, _)) if pv == v => route,
            _ => None,
        }
    }

    /// The route answered now, if VC `v` may use it in this cycle (never with the route stage:
    /// it is only registered then).
    fn arriving(&self, v: usize, route: Option<RouteAnswer>) -> Option<RouteAnswer> {
        self.route_here(v, route).filter(|_| !self.route_stage)
    }

    /// The output VC of the pending lookup's head leaving on `port`.
    fn out_vc_for(&self, port: usize) -> usize {
        let (v, kind, dst) = self.pending.expect("a lookup in flight");
        let kind = PacketKind::from_code(kind as u8).expect("a stored head has a valid kind");
        let down = (self.down_ports >> port) & 1 == 1;
        self.policy
            .out_vc(self.vcs, self.mgmt_vc, v, kind, dst, down)
    }

    /// What VC `v` offers the switch in this cycle, given the route answered now.
    pub fn offer(&self, v: usize, route: Option<RouteAnswer>) -> VcOffer {
        let front = self.front(v);
        let head = front.is_some_and(is_head);
        let fresh = self.arriving(v, route).filter(|r| !r.none);
        let (port, out_vc) = match (self.routed[v].or(self.moving[v]), fresh) {
            (Some(r), _) => r,
            (None, Some(r)) => (r.port, self.out_vc_for(r.port)),
            _ => (0, 0),
        };
        VcOffer {
            ready: (head && !self.mgmt_head(v) && (self.routed[v].is_some() || fresh.is_some()))
                || (self.moving[v].is_some() && front.is_some()),
            head,
            last: front.is_some_and(is_last),
            port,
            out_vc,
            len: front.map_or(0, |f| LEN.get(f) as usize),
        }
    }

    /// A head as it leaves in this cycle for the VC `out_vc`: `vc` rewritten, `delay` plus the
    /// cycles from its arrival to the output channel (one more than to now), saturating.
    fn rewrite(&self, w: u128, arrived: u64, out_vc: usize) -> u128 {
        let delay = (DELAY.get(w) as u64 + self.cycle + 1 - arrived).min(DELAY.max() as u64);
        let w = VC.set(w, out_vc as u128);
        let w = DELAY.set(w, delay as u128);
        RSVD.set(w, 0)
    }

    /// One cycle: the outputs for `inp`, then the edge.
    pub fn cycle(&mut self, inp: Inputs) -> Outputs {
        let mut out = Outputs {
            to_agent: self.agent,
            events: self.damq.events | self.own_events,
            fault: self.own_events & (1 << event::NO_ROUTE) != 0,
            ..Default::default()
        };
        for v in 0..self.vcs {
            if let Some((p, _)) = self.routed[v].or(self.moving[v]) {
                out.queued |= 1 << p;
            }
        }
        let offers: Vec<VcOffer> = (0..self.vcs).map(|v| self.offer(v, inp.route)).collect();
        if let Some(g) = inp.grant {
            assert!(offers[g].ready, "the bench grants only ready VCs");
        }
        // The side read.
        let room = self.agent.is_none() || inp.agent_ready;
        let mut side = None;
        for v in 0..self.vcs {
            let mh = self.mgmt_head(v);
            let none_here = self.arriving(v, inp.route).is_some_and(|r| r.none);
            let drop_now = self.dropping[v] || (mh && v != self.mgmt_vc) || none_here;
            let agent_now = self.managing[v] || (mh && v == self.mgmt_vc);
            if self.front(v).is_some() && (drop_now || (agent_now && room)) && side.is_none() {
                side = Some((v, agent_now, mh && v != self.mgmt_vc));
            }
        }
        let side = side.filter(|_| inp.grant.is_none());
        out.side = side.map(|(v, a, _)| (v, a));
        let read = inp.grant.or(side.map(|s| s.0));
        let moved = read.and_then(|r| self.front(r));
        // The flit leaving, rewritten.
        let leaving = moved.map(|w| {
            let r = read.unwrap();
            let out_vc = match inp.grant {
                Some(g) => offers[g].out_vc,
                None => r,
            };
            if is_head(w) {
                self.rewrite(w, self.arrivals[r][0], out_vc)
            } else {
                w
            }
        });
        if inp.grant.is_some() {
            out.switch_flit = leaving;
        }
        // The DAMQ's edge, on a copy first: does the arrival bypass to an idle VC's front?
        let mut next = self.damq.clone();
        next.edge(inp.arrival, read);
        let mut stored_head = None;
        if let Some((v, _)) = inp.arrival.filter(|a| a.0 < self.vcs) {
            let before = self.damq.queues[v].len() - (read == Some(v) && moved.is_some()) as usize;
            let after = next.queues[v].len();
            if after == before + 1 && is_head(*next.queues[v].back().unwrap()) {
                stored_head = Some((v, before == 0));
            }
        }
        // The lookup: the arrival at an idle VC first, else the lowest unrouted front.
        let arrival_lookup = match (stored_head, inp.arrival) {
            (Some((v, true)), Some((_, w))) if kind_of(w) != PacketKind::Mgmt.code() as u128 => {
                Some((v, w))
            }
            _ => None,
        };
        out.lookup = arrival_lookup.or_else(|| {
            (0..self.vcs)
                .find(|&v| {
                    self.front(v).is_some_and(is_head)
                        && !self.mgmt_head(v)
                        && self.routed[v].is_none()
                        && !self.dropping[v]
                        && self.pending.map(|p| p.0) != Some(v)
                })
                .map(|v| (v, self.front(v).unwrap()))
        });
        // The edge.
        let mut events = 0;
        if self.pending.is_some() && inp.route.is_some_and(|r| r.none) {
            events |= 1 << event::NO_ROUTE;
        }
        if let Some((_, _, true)) = side {
            events |= 1 << event::MGMT_OFF_VC;
        }
        for v in 0..self.vcs {
            if let Some(r) = self.route_here(v, inp.route) {
                if r.none {
                    self.dropping[v] = true;
                } else {
                    self.routed[v] = Some((r.port, self.out_vc_for(r.port)));
                }
            }
        }
        if let (Some(r), Some(w)) = (read, moved) {
            if is_head(w) {
                self.arrivals[r].pop_front();
            }
            if inp.grant.is_some() {
                if is_head(w) {
                    self.moving[r] = self.routed[r].take();
                }
                if is_last(w) {
                    self.moving[r] = None;
                }
            } else if side.unwrap().1 {
                self.managing[r] = !is_last(w);
            } else {
                self.dropping[r] = !is_last(w);
            }
        }
        if inp.agent_ready {
            self.agent = None;
        }
        if let (Some((_, true, _)), Some(w)) = (side, leaving) {
            self.agent = Some((w, is_last(w)));
        }
        if let Some((v, _)) = stored_head {
            self.arrivals[v].push_back(self.cycle);
        }
        self.damq = next;
        self.pending = out.lookup.map(|(v, w)| (v, kind_of(w), DST.get(w) as u64));
        self.own_events = events;
        self.cycle += 1;
        out
    }
}
