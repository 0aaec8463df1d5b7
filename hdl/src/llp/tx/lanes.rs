//! The lane mask of [`TxLink`](super::TxLink): the active physical lanes the striper sends on,
//! and the step of the LTP sequence state for that many lanes.
//!
//! `got_mask(m)` (nonzero, not the mask in use) makes `m` a pending change; it is applied
//! between LTPs, once the link runs, the serializer is idle and the striper is idle (it
//! samples `mask` then), and no LTP starts while it waits. At `start` the mask becomes
//! `start_mask` at once (the striper is held in reset while the link is down) and a pending
//! change is dropped. With the mask go the sequence state's step (33 mod L) and wrap (L - 1):
//! the serializer places an LTP that follows the previous trailer at once on lane
//! `(state + 33) mod L`.
//!
//! Latency: registered; the new mask shows on `mask` the cycle after it is applied. Reset: the
//! initial mask in use and applied again as a pending change (once the link is up and the
//! striper idle).
use super::{LaneStateSource, LinkStateSink, SerializerSink};
use crate::bits::PopCount;
use crate::llp::link_requests::LinkRequestsSink;
use rust_hdl::prelude::*;

/// The lane mask in use and its changes.
#[derive(LogicBlock)]
pub struct TxLanes {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the initial mask, pending.
    pub reset: Signal<In, bool>,
    /// The link's state.
    pub link: LinkStateSink,
    /// The receiver's requests (`got_mask`).
    pub from_rx: LinkRequestsSink,
    /// Valid with `start`: the lanes to send on from now.
    pub start_mask: Signal<In, Bits<4>>,
    /// The striper is idle between LTPs.
    pub striper_idle: Signal<In, bool>,
    /// The serializer's state (idle).
    pub serializer: SerializerSink,
    /// Active physical lanes, to the striper.
    pub mask: Signal<Out, Bits<4>>,
    /// The change waiting and the sequence state's step, to the serializer.
    pub out: LaneStateSource,
    change_pending: DFF<bool>,
    new_mask: DFF<Bits<4>>,
    mask_in_use: DFF<Bits<4>>,
    state_step: DFF<Bits<2>>,
    state_wrap: DFF<Bits<2>>,
    initial_mask: Constant<Bits<4>>,
    /// The mask applied if one is applied now.
    source: Signal<Local, Bits<4>>,
    /// Lanes in `source`.
    lane_count: PopCount<4, 3>,
    /// The bundle fields this stage does not read, acknowledged here (Verilator's lint passes
    /// names containing "unused"; nothing reads this, so synthesis removes it).
    unused_inputs: Signal<Local, bool>,
}

impl TxLanes {
    /// Lanes `mask` after reset.
    pub fn new(mask: u8) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            link: Default::default(),
            from_rx: Default::default(),
            start_mask: Default::default(),
            striper_idle: Default::default(),
            serializer: Default::default(),
            mask: Default::default(),
            out: Default::default(),
            change_pending: Default::default(),
            new_mask: Default::default(),
            mask_in_use: Default::default(),
            state_step: Default::default(),
            state_wrap: Default::default(),
            initial_mask: Constant::new((mask as u64).into()),
            source: Default::default(),
            lane_count: PopCount::new(),
            unused_inputs: Default::default(),
        }
    }
}

impl Logic for TxLanes {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            change_pending,
            new_mask,
            mask_in_use,
            state_step,
            state_wrap
        );
        self.unused_inputs.next = self.link.up.val()
            | self.link.restart.val()
            | self.from_rx.got_retry.val()
            | self.from_rx.got_retry_seq.val().any()
            | self.from_rx.got_echo.val()
            | self.from_rx.got_echo_seq.val().any()
            | self.from_rx.send_retry.val()
            | self.from_rx.send_echo.val()
            | self.from_rx.expect_seq.val().any()
            | self.from_rx.mask.val().any()
            | self.serializer.null_start.val()
            | self.serializer.ltp_start.val();
        self.mask.next = self.mask_in_use.q.val();
        self.out.change_pending.next = self.change_pending.q.val();
        self.out.state_step.next = self.state_step.q.val();
        self.out.state_wrap.next = self.state_wrap.q.val();

        self.source.next = self.new_mask.q.val();
        if self.link.start.val() {
            self.source.next = self.start_mask.val();
        }
        self.lane_count.bits.next = self.source.val();
        if (self.change_pending.q.val()
            & self.link.run.val()
            & !self.serializer.active.val()
            & self.striper_idle.val())
            | self.link.start.val()
        {
            self.mask_in_use.d.next = self.source.val();
            self.change_pending.d.next = false;
            self.state_step.d.next = 0.into();
            self.state_wrap.d.next = 0.into();
            if self.lane_count.count.val() == 4 {
                self.state_step.d.next = 1.into();
                self.state_wrap.d.next = 3.into();
            }
            if self.lane_count.count.val() == 2 {
                self.state_step.d.next = 1.into();
                self.state_wrap.d.next = 1.into();
            }
        }
        if self.from_rx.got_mask.val()
            & self.from_rx.got_mask_val.val().any()
            & (self.from_rx.got_mask_val.val() != self.mask_in_use.q.val())
        {
            self.change_pending.d.next = true;
            self.new_mask.d.next = self.from_rx.got_mask_val.val();
        }
        if self.link.start.val() {
            self.change_pending.d.next = false;
        }
        if self.reset.val() {
            self.change_pending.d.next = true;
            self.new_mask.d.next = self.initial_mask.val();
            self.mask_in_use.d.next = self.initial_mask.val();
        }
    }
}
