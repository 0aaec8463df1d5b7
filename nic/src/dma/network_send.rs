//! `NetworkSend`: the NIC's outgoing traffic onto its one network channel: the send engine's
//! packets (one flit stream, each packet on the VC `vc` names) and the management agent's
//! packets (on `network.mgmt_vc`), through a [`ChannelSender`] (one credit counter per VC,
//! round robin flit by flit among the VCs that offer a flit and hold a credit).
//!
//! **Steering.** A packet flit is offered to the sender's input of VC `vc`, the management
//! stream to the input of the management VC; each is taken when that input is. A VC stalled
//! for credits holds only its own stream: the management agent's replies pass a data VC that
//! waits, and the data VC passes a management VC that waits. The send engine holds `vc` for
//! the whole of a packet, so the flits of one packet stay on one VC.
//!
//! **Bad input.** The send engine never names the management VC or a VC at or above `VCS`
//! (its VCs come from `nic::tops::nic_vcs`); such a flit would wait for ever, so [`new`]
//! refuses settings that could make one, and `stray` pulses in any cycle one is offered (a
//! broken send engine, counted rather than hidden).
//!
//! **Timing**: the sender's (a flit taken on the edge ending cycle `c` is on the channel in
//! `c + 1`). **Reset** (synchronous): the sender's (every counter back to `initial`).
//!
//! Parameters: `VCS`, `VCB` as [`ChannelSender`]; elaboration values `initial` credits per VC
//! (the far receiver's buffer per VC) and the management VC.
//!
//! [`new`]: NetworkSend::new
use hdl::channel::ChannelSource;
use hdl::channel_sender::ChannelSender;
use hdl::formats::FLIT_BITS;
use hdl::stream::StreamSink;
use rust_hdl::prelude::*;

/// Bits of the send engine's `vc`.
pub const PACKET_VC_BITS: usize = 3;

/// The steering and sender; see the module documentation.
#[derive(LogicBlock)]
pub struct NetworkSend<const VCS: usize, const VCB: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// The send engine's packets.
    pub packets: StreamSink<Bits<FLIT_BITS>>,
    /// The VC of the packet on offer.
    pub vc: Signal<In, Bits<PACKET_VC_BITS>>,
    /// The management agent's packets.
    pub management: StreamSink<Bits<FLIT_BITS>>,
    /// The network channel.
    pub channel: ChannelSource<VCS, VCB>,
    /// More credits returned than `initial` (sticky until reset).
    pub error: Signal<Out, bool>,
    /// A packet flit offered on the management VC or a VC out of range.
    pub stray: Signal<Out, bool>,
    sender: ChannelSender<VCS, VCB>,
    vc_ids: Vec<Constant<Bits<PACKET_VC_BITS>>>,
    management_vc: Constant<Bits<PACKET_VC_BITS>>,
    /// The packet's VC is a data VC of this channel.
    packet_vc_ok: Signal<Local, bool>,
}

impl<const VCS: usize, const VCB: usize> NetworkSend<VCS, VCB> {
    /// Steering onto a channel of `VCS` VCs whose receiver holds `initial` flits per VC, the
    /// management agent on `management_vc`; `packet_vcs` are the VCs the send engine uses.
    /// Panics naming the value if the management VC is out of range or a packet VC is the
    /// management VC or out of range.
    pub fn new(initial: usize, management_vc: usize, packet_vcs: &[u8]) -> Self {
        assert!(
            management_vc < VCS,
            "NetworkSend: management VC {management_vc} must be below {VCS}"
        );
        for &v in packet_vcs {
            assert!(
                (v as usize) < VCS && v as usize != management_vc,
                "NetworkSend: packet VC {v} must be below {VCS} and not the management VC {management_vc}"
            );
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            packets: Default::default(),
            vc: Default::default(),
            management: Default::default(),
            channel: Default::default(),
            error: Default::default(),
            stray: Default::default(),
            sender: ChannelSender::new(initial),
            vc_ids: (0..VCS).map(|v| Constant::new(v.to_bits())).collect(),
            management_vc: Constant::new(management_vc.to_bits()),
            packet_vc_ok: Default::default(),
        }
    }
}

impl<const VCS: usize, const VCB: usize> Logic for NetworkSend<VCS, VCB> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, sender);
        self.sender.reset.next = self.reset.val();
        ChannelSource::<VCS, VCB>::link(&mut self.channel, &mut self.sender.channel);
        self.error.next = self.sender.error.val();
        self.packets.ready.next = false;
        self.management.ready.next = false;
        self.packet_vc_ok.next = false;
        for v in 0..VCS {
            self.sender.sinks[v].data.next = self.packets.data.val();
            self.sender.sinks[v].valid.next =
                self.packets.valid.val() & (self.vc.val() == self.vc_ids[v].val());
            if self.vc_ids[v].val() == self.management_vc.val() {
                self.sender.sinks[v].data.next = self.management.data.val();
                self.sender.sinks[v].valid.next = self.management.valid.val();
                self.management.ready.next = self.sender.sinks[v].ready.val();
            } else if self.vc.val() == self.vc_ids[v].val() {
                self.packets.ready.next = self.sender.sinks[v].ready.val();
                self.packet_vc_ok.next = true;
            }
        }
        self.stray.next = self.packets.valid.val() & !self.packet_vc_ok.val();
    }
}

#[test]
fn network_send_is_synthesizable() {
    let mut uut = NetworkSend::<2, 1>::new(32, 1, &[0]);
    uut.connect_all();
    yosys_validate("network_send", &generate_verilog(&uut)).unwrap();
}
