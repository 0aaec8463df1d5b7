//! `NapFlow`: the NAP upload's packet stage, between its input stream and the beat assembler.
//! It is the one consumer of `packets` (its `ready`), and it knows where the upload is in a
//! packet ([`NapState`]); what to do with a packet is decided outside, by the head's verdict
//! (`NapVerdict`, from the open-message table's answer), and given here as `act` and its
//! qualifiers.
//!
//! - **Head**: a packet's first word waits (`at_head`) until the verdict acts. Then a written
//!   packet's first word goes to the assembler in the same cycle, with `head_address` and the
//!   verdict's `mark` (so the take's answer and the first word go together); a dropped packet's
//!   word is taken at once. The head's address and mark are kept for the rest of the packet.
//! - **Flow**: the packet's further words go to the assembler at the kept address and mark
//!   (the assembler reads `address` on a packet's first word only; it is held anyway).
//! - **Swallow**: the packet's further words are taken and dropped, one per cycle.
//!
//! The packet's last word taken returns it to Head. **Touch**: the table entry of the packet
//! at the head (a hit), or of the packet in Flow or Swallow when its entry stays open after it
//! (`holds`: the entry hit, or the one opened), is touched every cycle, so a message whose
//! write is stalled by the host never expires under it.
//!
//! Handshake: `packets` ([`ReceivedPacketSink`]; this stage reads `valid`, `dst_function`,
//! `bytes`, `word`, `last`; the head's other fields are read by the upload's other stages) and
//! `words` ([`PayloadWordSource`], joined whole to the assembler): a written packet's word is
//! taken exactly when the assembler takes it (`ready` follows `words.ready`, which never
//! depends on `valid`); a dropped packet's words every cycle. `words` is combinational from
//! `packets` (the assembler registers what it takes).
//!
//! Rate: one word per cycle in Flow while the assembler takes them, one per cycle in Swallow.
//! Reset (synchronous): back to Head, nothing held.
use super::beat_assembler::PayloadWordSource;
use super::nap_table::NAP_INDEX_BITS;
use super::ReceivedPacketSink;
use hdl::formats::nic::ADDRESS_BITS;
use rust_hdl::prelude::*;

/// Where the upload is in a packet.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum NapState {
    /// A packet's first word (its head) waits for its verdict to act.
    Head,
    /// The packet's words go to the assembler.
    Flow,
    /// The packet's words are dropped.
    Swallow,
}

/// The packet stage; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct NapFlow {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, bool>,
    /// Checked NAP packets (the upload's input, linked whole).
    pub packets: ReceivedPacketSink,
    /// Payload words with their address and mark, to the beat assembler.
    pub words: PayloadWordSource,
    /// Host address of the head packet's first byte (its buffer + `nap_offset`).
    pub head_address: Signal<In, Bits<ADDRESS_BITS>>,
    /// The head's verdict acts on this edge.
    pub act: Signal<In, bool>,
    /// ... and the packet is written (else dropped).
    pub written: Signal<In, bool>,
    /// ... and its last beat releases its message's receive event.
    pub mark: Signal<In, bool>,
    /// ... and its entry stays open after it (touched while the packet is taken).
    pub holds: Signal<In, bool>,
    /// ... and it opens an entry (the free one).
    pub opens: Signal<In, bool>,
    /// The head's key hits an open entry.
    pub hit: Signal<In, bool>,
    /// The entry hit.
    pub hit_index: Signal<In, Bits<NAP_INDEX_BITS>>,
    /// The entry an opening packet takes.
    pub free_index: Signal<In, Bits<NAP_INDEX_BITS>>,
    /// A packet's first word waits at the head (for the verdict).
    pub at_head: Signal<Out, bool>,
    /// Clear entry `touch_index`'s age (a packet of its message is at the head or in flight).
    pub touch: Signal<Out, bool>,
    /// The entry touched.
    pub touch_index: Signal<Out, Bits<NAP_INDEX_BITS>>,
    state: DFF<NapState>,
    /// Address of the packet's first byte while its first word waits in `Flow`.
    flow_address: DFF<Bits<ADDRESS_BITS>>,
    /// The packet in `Flow` completes its message.
    flow_mark: DFF<bool>,
    /// The packet in `Flow` or `Swallow` belongs to entry `held_entry` (kept from expiring).
    holding: DFF<bool>,
    held_entry: DFF<Bits<NAP_INDEX_BITS>>,
    word_taken: Signal<Local, bool>,
    /// The packet fields this stage does not read (the upload's other stages read the head's).
    unused_fields: Signal<Local, bool>,
}

impl Logic for NapFlow {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            flow_address,
            flow_mark,
            holding,
            held_entry
        );
        self.unused_fields.next = self.packets.kind.val().any()
            | self.packets.src_node.val().any()
            | self.packets.src_function.val().any()
            | self.packets.src_qp.val().any()
            | self.packets.dst_qp.val().any()
            | self.packets.delay.val().any()
            | self.packets.address.val().any()
            | self.packets.nap_offset.val().any()
            | self.packets.nap_length.val().any()
            | self.packets.event.val()
            | self.packets.message_last.val()
            | self.packets.get_response.val();
        self.at_head.next = (self.state.q.val() == NapState::Head) & self.packets.valid.val();
        // The words: the head's when a written packet's verdict acts, then the packet's.
        self.words.valid.next = (self.act.val() & self.written.val())
            | ((self.state.q.val() == NapState::Flow) & self.packets.valid.val());
        self.words.function.next = self.packets.dst_function.val();
        self.words.address.next = self.flow_address.q.val();
        self.words.mark.next = self.flow_mark.q.val();
        if self.state.q.val() == NapState::Head {
            self.words.address.next = self.head_address.val();
            self.words.mark.next = self.mark.val();
        }
        self.words.bytes.next = self.packets.bytes.val();
        self.words.word.next = self.packets.word.val();
        self.words.last.next = self.packets.last.val();
        self.packets.ready.next = (self.state.q.val() == NapState::Swallow)
            | (self.act.val() & !self.written.val())
            | (self.words.ready.val()
                & ((self.state.q.val() == NapState::Flow) | (self.act.val() & self.written.val())));
        self.word_taken.next = self.packets.valid.val() & self.packets.ready.val();
        // The packet's next state.
        if self.act.val() {
            self.flow_address.d.next = self.head_address.val();
            self.flow_mark.d.next = self.mark.val();
            self.holding.d.next = self.holds.val();
            self.held_entry.d.next = self.hit_index.val();
            if self.opens.val() {
                self.held_entry.d.next = self.free_index.val();
            }
            if !(self.word_taken.val() & self.packets.last.val()) {
                self.state.d.next = NapState::Swallow;
                if self.written.val() {
                    self.state.d.next = NapState::Flow;
                }
            }
        }
        if (self.state.q.val() != NapState::Head) & self.word_taken.val() & self.packets.last.val()
        {
            self.state.d.next = NapState::Head;
        }
        // The entry of the packet at the head or in flight, kept from expiring.
        self.touch.next = (self.at_head.val() & self.hit.val())
            | ((self.state.q.val() != NapState::Head) & self.holding.q.val());
        self.touch_index.next = self.held_entry.q.val();
        if self.state.q.val() == NapState::Head {
            self.touch_index.next = self.hit_index.val();
        }
        if self.reset.val() {
            self.state.d.next = NapState::Head;
            self.holding.d.next = false;
        }
    }
}

#[test]
fn nap_flow_is_synthesizable() {
    let mut uut = NapFlow::default();
    uut.connect_all();
    yosys_validate("nap_flow", &generate_verilog(&uut)).unwrap();
}
