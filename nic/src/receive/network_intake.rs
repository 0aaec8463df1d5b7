//! `NetworkIntake`: the NIC's network channel into whole-packet streams, one per consumer
//! (`docs/nic-design.md`, "Receive engine (part 4)", rule **Input**).
//!
//! ```text
//! channel (flits of all VCs interleaved, credits back)
//!    └─► ChannelReceiver, whole packets: one buffer per VC, a VC offered only once its
//!          │                               buffer holds the end of the packet at its front
//!          ├─ data VCs ──► StreamMux (round robin, a packet never interleaved) ─► data
//!          ├─ GET VC ────────────────────────────────────────────────────────► gets
//!          └─ management VC ─────────────────────────────────────────────────► management
//! ```
//!
//! **Why whole packets.** The link interleaves the flits of its VCs and a sender may stall a VC
//! in the middle of a packet (no credits further upstream). The receive buffer takes one packet
//! at a time, so the data VCs are merged packet by packet; if the merge could pick a packet
//! whose end had not arrived it would wait inside it and block every other VC behind a stalled
//! one (a fabric deadlock hazard). Each VC's buffer holds the largest packet
//! (`network.max_packet_flits`) and is offered only from the moment the end of its front packet
//! is buffered, so the merge never waits inside a packet: a stalled VC never blocks another.
//!
//! **Roles of the VCs** (elaboration, [`NetworkIntake::new`]): `network.mgmt_vc` carries
//! management packets to the management agent (`management`); the GET VC, when the
//! configuration has one apart from the data VC (`nic::tops::nic_vcs`), carries GET requests on
//! their own path (`gets`: the deadlock argument of "GET to PUT"); every other VC is a data VC
//! (routers may move data packets between VCs by their VC policy). Without a GET VC (fewer
//! than 3 VCs) GETs arrive on the data stream and `gets` never offers anything.
//!
//! **Credits**: the receiver's, one per flit leaving a buffer (`ChannelReceiver`), starting at
//! the buffer depth `D`. **Errors**: `events` as the receiver's (a flit on a VC out of range, a
//! flit without credit: dropped, one pulse each, for counters).
//!
//! **Latency and rate** (derived from the parts, not measured): the receiver's buffer latency
//! (`ChannelReceiver`: a flit offered 1 cycle after it arrives with register buffers, 2 with
//! block RAM) plus, on `data`, the merge's output register; `StreamMux` moves one beat per cycle
//! while one input streams.
//!
//! **Reset** (synchronous): buffers empty, no credit pending, merge idle.
//!
//! Parameters: `VCS` (2..=8), `VCB` = `channel_vc_bits(VCS)`, `D` buffer depth per VC (a
//! power of two at least `max_packet_flits`), `AW`, `CW` its pointer and count widths, `W` the
//! merge's index width (`index_width(VCS)`); use [`network_intake!`](crate::network_intake).
use hdl::arb::StreamMux;
use hdl::channel::ChannelSink;
use hdl::channel_receiver::{ChannelReceiver, RECEIVER_EVENTS};
use hdl::formats::flit::{ControlCode, CODE, HEAD_BIT, TAIL_BIT, TYPE_BIT};
use hdl::formats::FLIT_BITS;
use hdl::stream::StreamSource;
use rust_hdl::prelude::*;

// `update` reads a control flit's code at a literal offset (a `get_bits` offset must be one).
const _: () = assert!(CODE.lsb == 56 && CODE.width == 6);

/// The type of a [`NetworkIntake`] of `$vcs` VCs with buffers of `$depth` flits, widths
/// filled in: `network_intake!(2, 32)`.
#[macro_export]
macro_rules! network_intake {
    ($vcs:expr, $depth:expr) => {
        $crate::receive::network_intake::NetworkIntake<
            { $vcs },
            { hdl::channel::channel_vc_bits($vcs) },
            { $depth },
            { hdl::fifo::fifo_ptr_bits($depth) },
            { hdl::fifo::fifo_count_bits($depth) },
            { hdl::arb::index_width($vcs) },
        >
    };
}

/// The network intake; see the module documentation.
#[derive(LogicBlock)]
pub struct NetworkIntake<
    const VCS: usize,
    const VCB: usize,
    const D: usize,
    const AW: usize,
    const CW: usize,
    const W: usize,
> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The network channel from the link layer.
    pub channel: ChannelSink<VCS, VCB>,
    /// Whole packets of the data VCs, merged (to the receive buffer).
    pub data: StreamSource<Bits<FLIT_BITS>>,
    /// Whole packets of the GET VC (to the GET path's receive buffer).
    pub gets: StreamSource<Bits<FLIT_BITS>>,
    /// Whole packets of the management VC (to the management agent).
    pub management: StreamSource<Bits<FLIT_BITS>>,
    /// The receiver's error pulses (`hdl::channel_receiver::BAD_VC`, `OVERFLOW`).
    pub events: Signal<Out, Bits<RECEIVER_EVENTS>>,
    receiver: ChannelReceiver<VCS, VCB, D, AW, CW>,
    merge: StreamMux<Bits<FLIT_BITS>, VCS, W>,
    /// Per VC, its role.
    is_data: Vec<Constant<bool>>,
    is_get: Vec<Constant<bool>>,
    is_management: Vec<Constant<bool>>,
    type_bit: Constant<Bits<7>>,
    head_bit: Constant<Bits<7>>,
    tail_bit: Constant<Bits<7>>,
    code_tail_bad: Constant<Bits<6>>,
    /// `ends[v + 1]` holds bits `0..=v`: VC `u`'s front flit ends its packet (the merge's
    /// `lasts`, accumulated in a chain as `StreamMux` does its requests).
    ends: Vec<Signal<Local, Bits<VCS>>>,
    /// Per VC: its front flit.
    front: Vec<Signal<Local, Bits<FLIT_BITS>>>,
    /// The receiver's discard events (the intake never discards: the NIC drains every VC) and
    /// the GET stream's `ready` when there is no GET VC.
    unused_discards: Signal<Local, bool>,
}

impl<
        const VCS: usize,
        const VCB: usize,
        const D: usize,
        const AW: usize,
        const CW: usize,
        const W: usize,
    > NetworkIntake<VCS, VCB, D, AW, CW, W>
{
    /// The intake for packets of at most `max_packet_flits` flits, management on `mgmt_vc`, GET
    /// requests on `get_vc` when the configuration has a GET VC of its own (`None`: GETs on the
    /// data VCs). Panics naming the parameter when a VC is out of range, the two coincide, no
    /// data VC is left, or `D` is below `max_packet_flits`.
    pub fn new(max_packet_flits: usize, mgmt_vc: usize, get_vc: Option<usize>) -> Self {
        assert!(
            mgmt_vc < VCS,
            "NetworkIntake: mgmt_vc = {mgmt_vc} must be below VCS = {VCS}"
        );
        if let Some(g) = get_vc {
            assert!(
                g < VCS && g != mgmt_vc,
                "NetworkIntake: get_vc = {g} must be below VCS = {VCS} and not mgmt_vc"
            );
        }
        let get = |v: usize| get_vc == Some(v);
        assert!(
            (0..VCS).any(|v| v != mgmt_vc && !get(v)),
            "NetworkIntake: no data VC is left among {VCS} VCs"
        );
        let pos = |b: usize| Constant::new(Bits::<7>::from(b as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            channel: Default::default(),
            data: Default::default(),
            gets: Default::default(),
            management: Default::default(),
            events: Default::default(),
            receiver: ChannelReceiver::new(D).whole_packets(max_packet_flits),
            merge: StreamMux::new(true),
            is_data: (0..VCS)
                .map(|v| Constant::new(v != mgmt_vc && !get(v)))
                .collect(),
            is_get: (0..VCS).map(|v| Constant::new(get(v))).collect(),
            is_management: (0..VCS).map(|v| Constant::new(v == mgmt_vc)).collect(),
            type_bit: pos(TYPE_BIT),
            head_bit: pos(HEAD_BIT),
            tail_bit: pos(TAIL_BIT),
            code_tail_bad: Constant::new((ControlCode::TailBadPkt.code() as u64).into()),
            ends: (0..=VCS).map(|_| Default::default()).collect(),
            front: (0..VCS).map(|_| Default::default()).collect(),
            unused_discards: Default::default(),
        }
    }
}

impl<
        const VCS: usize,
        const VCB: usize,
        const D: usize,
        const AW: usize,
        const CW: usize,
        const W: usize,
    > Logic for NetworkIntake<VCS, VCB, D, AW, CW, W>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, receiver, merge);
        self.receiver.reset.next = self.reset.val();
        self.merge.reset.next = self.reset.val();
        ChannelSink::<VCS, VCB>::link(&mut self.channel, &mut self.receiver.channel);
        StreamSource::<Bits<FLIT_BITS>>::link(&mut self.data, &mut self.merge.source);
        self.receiver.discard.next = false;
        self.unused_discards.next = self.receiver.discarded.val()
            | self.receiver.discarded_heads.val()
            | self.gets.ready.val();
        self.events.next = self.receiver.events.val();
        self.gets.valid.next = false;
        self.gets.data.next = 0.into();
        self.management.valid.next = false;
        self.management.data.next = 0.into();
        self.ends[0].next = 0.into();
        for v in 0..VCS {
            self.front[v].next = self.receiver.sources[v].data.val();
            self.ends[v + 1].next = self.ends[v].val().replace_bit(
                v,
                !self.front[v].val().get_bit(self.type_bit.val().index())
                    & !self.front[v].val().get_bit(self.head_bit.val().index())
                    & (self.front[v].val().get_bit(self.tail_bit.val().index())
                        | (self.front[v].val().get_bits::<6>(56) == self.code_tail_bad.val())),
            );
            self.merge.sinks[v].valid.next =
                self.receiver.sources[v].valid.val() & self.is_data[v].val();
            self.merge.sinks[v].data.next = self.front[v].val();
            self.receiver.sources[v].ready.next = self.merge.sinks[v].ready.val();
            if self.is_get[v].val() {
                self.gets.valid.next = self.receiver.sources[v].valid.val();
                self.gets.data.next = self.front[v].val();
                self.receiver.sources[v].ready.next = self.gets.ready.val();
            }
            if self.is_management[v].val() {
                self.management.valid.next = self.receiver.sources[v].valid.val();
                self.management.data.next = self.front[v].val();
                self.receiver.sources[v].ready.next = self.management.ready.val();
            }
        }
        for v in VCS..(VCS + 1) {
            self.merge.lasts.next = self.ends[v].val();
        }
    }
}

#[test]
fn network_intake_is_synthesizable() {
    let mut uut = <crate::network_intake!(4, 32)>::new(32, 1, Some(2));
    uut.connect_all();
    yosys_validate("network_intake", &generate_verilog(&uut)).unwrap();
    let mut two = <crate::network_intake!(2, 32)>::new(32, 1, None);
    two.connect_all();
    yosys_validate("network_intake_2", &generate_verilog(&two)).unwrap();
}
