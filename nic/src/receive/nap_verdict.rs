//! `NapVerdict`: what the NAP upload does with the packet at its head (combinational), from
//! the packet's NAP fields and the open-message table's answer for its key:
//!
//! | case | condition | outcome |
//! |---|---|---|
//! | `overrun` | a hit whose length differs from the entry's, or whose `offset + bytes` or bytes received + `bytes` pass the length; a miss whose `offset + bytes` passes its length | dropped, counted |
//! | `append` | a hit on an entry with a buffer | written at buffer + offset |
//! | `swallow` | a hit on a discarding entry (its message got no buffer) | dropped silently |
//! | `single` | a miss with offset 0 and `bytes` = length | a buffer taken, no entry |
//! | `full` | a miss of a multi-packet message, every entry busy | dropped, `AssemblyFull` |
//! | `opens` | a miss of a multi-packet message, an entry free | a buffer and an entry taken |
//!
//! **When it acts** (`act`, the head's decision takes effect on this edge): at once for
//! `overrun`, `swallow`, `full`; for `append` once the event register is free if the packet
//! completes its message; for `single` and `opens` with the buffer manager's answer (`take_done`;
//! the take is offered, `wants_take`, for `single` only while the event register is free, as
//! the message completes with it). `written`: the packet goes to the assembler (append, or a
//! buffer `found`); `mark`: its last beat releases a receive event; `posts`: an error event
//! (`full`, or a take that found nothing); `holds`: its entry stays open after it.
//!
//! `completes`: a hit's bytes received reach the length with this packet (its entry is freed
//! and, on `append`, its receive event captured). `received_after`: the bytes received
//! with this packet. Lengths and sums are 12 bits: an offset (11 bits) plus bytes (11 bits)
//! and a received count (below 2048) plus bytes both stay below 4096.
use super::{NAP_LENGTH_BITS, NAP_OFFSET_BITS, PACKET_BYTES_BITS};
use rust_hdl::prelude::*;

/// The head packet's verdict; see the module documentation.
#[derive(LogicBlock, Default)]
pub struct NapVerdict {
    /// The packet's offset in its message.
    pub nap_offset: Signal<In, Bits<NAP_OFFSET_BITS>>,
    /// The packet's message length.
    pub nap_length: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// The packet's payload bytes.
    pub bytes: Signal<In, Bits<PACKET_BYTES_BITS>>,
    /// An open entry holds the packet's key.
    pub hit: Signal<In, bool>,
    /// It discards its message.
    pub hit_discarding: Signal<In, bool>,
    /// Its bytes received.
    pub hit_received: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// Its message length.
    pub hit_length: Signal<In, Bits<NAP_LENGTH_BITS>>,
    /// An entry is free.
    pub any_free: Signal<In, bool>,
    /// A packet's first word is at the head.
    pub at_head: Signal<In, bool>,
    /// The receive-event register is full.
    pub event_busy: Signal<In, bool>,
    /// The buffer manager answers the take.
    pub take_done: Signal<In, bool>,
    /// ... with a buffer.
    pub take_found: Signal<In, bool>,
    /// Offer the take.
    pub wants_take: Signal<Out, bool>,
    /// The verdict acts on this edge.
    pub act: Signal<Out, bool>,
    /// The packet is written.
    pub written: Signal<Out, bool>,
    /// A buffer was found.
    pub found: Signal<Out, bool>,
    /// Its last beat releases the message's receive event.
    pub mark: Signal<Out, bool>,
    /// An error event is posted.
    pub posts: Signal<Out, bool>,
    /// Its entry stays open after it.
    pub holds: Signal<Out, bool>,
    /// Dropped: it would overrun its message.
    pub overrun: Signal<Out, bool>,
    /// Written into the entry's buffer.
    pub append: Signal<Out, bool>,
    /// Dropped: its message is being discarded.
    pub swallow: Signal<Out, bool>,
    /// Dropped: no free entry for its message.
    pub full: Signal<Out, bool>,
    /// A multi-packet message's first packet to arrive: a buffer and an entry.
    pub opens: Signal<Out, bool>,
    /// The hit's message is complete with this packet.
    pub completes: Signal<Out, bool>,
    /// Bytes received with this packet (a hit's count plus `bytes`; a miss's `bytes`).
    pub received_after: Signal<Out, Bits<NAP_LENGTH_BITS>>,
    /// A single-packet message: a buffer, no entry.
    single: Signal<Local, bool>,
    packet_bytes: Signal<Local, Bits<NAP_LENGTH_BITS>>,
    packet_end: Signal<Local, Bits<NAP_LENGTH_BITS>>,
    fits: Signal<Local, bool>,
    hit_fits: Signal<Local, bool>,
    whole: Signal<Local, bool>,
}

impl Logic for NapVerdict {
    #[hdl_gen]
    fn update(&mut self) {
        self.packet_bytes.next = bit_cast::<NAP_LENGTH_BITS, PACKET_BYTES_BITS>(self.bytes.val());
        self.packet_end.next = bit_cast::<NAP_LENGTH_BITS, NAP_OFFSET_BITS>(self.nap_offset.val())
            + self.packet_bytes.val();
        self.fits.next = self.packet_end.val() <= self.nap_length.val();
        self.whole.next =
            !self.nap_offset.val().any() & (self.packet_bytes.val() == self.nap_length.val());
        self.received_after.next = self.packet_bytes.val();
        if self.hit.val() {
            self.received_after.next = self.hit_received.val() + self.packet_bytes.val();
        }
        self.hit_fits.next = self.fits.val()
            & (self.nap_length.val() == self.hit_length.val())
            & (self.received_after.val() <= self.nap_length.val());
        self.completes.next = self.hit.val() & (self.received_after.val() == self.nap_length.val());
        self.overrun.next = !self.fits.val() | (self.hit.val() & !self.hit_fits.val());
        self.append.next = self.hit.val() & self.hit_fits.val() & !self.hit_discarding.val();
        self.swallow.next = self.hit.val() & self.hit_fits.val() & self.hit_discarding.val();
        self.single.next = !self.hit.val() & self.fits.val() & self.whole.val();
        self.full.next =
            !self.hit.val() & self.fits.val() & !self.whole.val() & !self.any_free.val();
        self.opens.next =
            !self.hit.val() & self.fits.val() & !self.whole.val() & self.any_free.val();
        // When it acts.
        self.wants_take.next =
            self.at_head.val() & ((self.single.val() & !self.event_busy.val()) | self.opens.val());
        self.found.next = self.take_done.val() & self.take_found.val();
        self.act.next = self.at_head.val()
            & (self.overrun.val()
                | self.swallow.val()
                | self.full.val()
                | (self.append.val() & !(self.completes.val() & self.event_busy.val()))
                | (self.wants_take.val() & self.take_done.val()));
        self.written.next =
            self.append.val() | ((self.single.val() | self.opens.val()) & self.found.val());
        self.mark.next = self.single.val() | self.completes.val();
        self.posts.next = self.act.val()
            & (self.full.val() | ((self.single.val() | self.opens.val()) & !self.found.val()));
        self.holds.next =
            ((self.append.val() | self.swallow.val()) & !self.completes.val()) | self.opens.val();
    }
}

#[test]
fn nap_verdict_is_synthesizable() {
    let mut uut = NapVerdict::default();
    uut.connect_all();
    yosys_validate("nap_verdict", &generate_verilog(&uut)).unwrap();
}
