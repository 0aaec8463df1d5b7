//! `DeltaCrc`: the CRC-16 of the changes [`MgmtTransit`](super::MgmtTransit) makes to a
//! transit packet, so the tail's CRC can be fixed without recomputing it (which would launder
//! a packet corrupted before it got here): the CRC is linear, `crc(m ^ d) = crc(m) ^ crc0(d)`
//! with `crc0` run without an initial value over the change `d` of each word (`data ^
//! rewritten`, zero for unchanged words and for the tail's word itself, `tail_word`) by one
//! 64-bit [`CrcStep`].
//!
//! Handshake: `advance` (a flit of the open packet goes by) steps the CRC on the edge;
//! `clear` (a management head opens a packet) zeroes it, over `advance`. `delta`: the CRC of
//! the changes so far (the register). Latency: one cycle. Not reset (the next packet clears
//! it before use). A pipeline stage of the transit block: no bench of its own, covered by the
//! `mgmt_transit` bench.
use hdl::crc::{CrcStep, CRC16};
use rust_hdl::prelude::*;

/// The CRC of a transit packet's changes; see the module documentation.
#[derive(LogicBlock)]
pub struct DeltaCrc {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// The flit's data word as it arrived.
    pub data: Signal<In, Bits<64>>,
    /// The same word as it is stored.
    pub rewritten: Signal<In, Bits<64>>,
    /// The word is the tail's (its change, the CRC fix itself, is not counted).
    pub tail_word: Signal<In, bool>,
    /// A flit of the open packet goes by: step the CRC.
    pub advance: Signal<In, bool>,
    /// A packet opens: zero the CRC.
    pub clear: Signal<In, bool>,
    /// The CRC of the changes so far.
    pub delta: Signal<Out, Bits<16>>,
    crc: CrcStep<16, 64>,
    state: DFF<Bits<16>>,
    change: Signal<Local, Bits<64>>,
}

impl DeltaCrc {
    /// The CRC-16 of `hdl::crc::CRC16`.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            data: Default::default(),
            rewritten: Default::default(),
            tail_word: Default::default(),
            advance: Default::default(),
            clear: Default::default(),
            delta: Default::default(),
            crc: CrcStep::new(&CRC16),
            state: Default::default(),
            change: Default::default(),
        }
    }
}

impl Default for DeltaCrc {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for DeltaCrc {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.change.next = self.data.val() ^ self.rewritten.val();
        if self.tail_word.val() {
            self.change.next = 0.into();
        }
        self.crc.state.next = self.state.q.val();
        self.crc.data.next = self.change.val();
        if self.advance.val() {
            self.state.d.next = self.crc.next_state.val();
        }
        if self.clear.val() {
            self.state.d.next = 0.into();
        }
        self.delta.next = self.state.q.val();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn delta_crc_is_synthesizable() {
        use super::*;
        let mut uut = DeltaCrc::new();
        uut.connect_all();
        yosys_validate("delta_crc", &generate_verilog(&uut)).unwrap();
    }
}
