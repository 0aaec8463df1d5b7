//! The self-checking demo core behind the Alchitry Cu bitstream: a traffic generator, a FIFO
//! and a checker, so a board with only LEDs shows whether the datapath works.
//!
//! The generator sends frames of [`FRAME_WORDS`] 32-bit words: `FRAME_WORDS - 1` words from an
//! LFSR, then the CRC-32 of those words computed by a [`ParallelCrc`] as they left. The words
//! cross a block-RAM [`StreamFifo`] whose reader is throttled by a second LFSR (ready 3 cycles
//! in 4), so the FIFO fills, empties and wraps. The checker recomputes the CRC-32 of each
//! frame's data words and compares it with the frame's last word: a match counts in
//! `frames_ok`, a mismatch in `frames_bad`. A `fault` pulse flips bit 0 of the next word the FIFO accepts
//! (exactly one word per pulse), for tests of the checker.
//!
//! Parameter: `D`, `AW`, `CW`, the FIFO depth and its widths (see [`hdl::stream_fifo!`]).
use hdl::crc::{ParallelCrc, CRC32};
use hdl::lfsr::Lfsr32;
use hdl::prelude::*;

/// Words per frame, the CRC word included.
pub const FRAME_WORDS: u32 = 64;

/// Generator, FIFO and checker.
#[derive(LogicBlock)]
pub struct DemoCore<const D: usize, const AW: usize, const CW: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: counters cleared, generator restarted.
    pub reset: Signal<In, bool>,
    /// A pulse flips bit 0 of the next word the FIFO accepts.
    pub fault: Signal<In, bool>,
    /// Frames whose CRC matched (wraps; wide enough to drive LEDs at a visible rate).
    pub frames_ok: Signal<Out, Bits<32>>,
    /// Frames whose CRC did not match (saturates).
    pub frames_bad: Signal<Out, Bits<16>>,
    data_lfsr: Lfsr32,
    pace_lfsr: Lfsr32,
    tx_crc: ParallelCrc<32, 32>,
    rx_crc: ParallelCrc<32, 32>,
    fifo: StreamFifo<Bits<32>, D, AW, CW>,
    /// The FIFO's fill count: the stream handshake paces the demo, so it is acknowledged here
    /// and not read.
    unused_count: Signal<Local, Bits<CW>>,
    tx_index: DFF<Bits<6>>,
    rx_index: DFF<Bits<6>>,
    ok: DFF<Bits<32>>,
    /// A fault was requested and has not yet corrupted a word.
    fault_pending: DFF<bool>,
    /// A frame's CRC word was read last cycle; `matched` says whether it matched. Registering
    /// the compare keeps the block-RAM read and the 32-bit compare out of the counters' path.
    checked: DFF<bool>,
    matched: DFF<bool>,
    bad: DFF<Bits<16>>,
    last_index: Constant<Bits<6>>,
    bad_max: Constant<Bits<16>>,
    tx_fire: Signal<Local, bool>,
    rx_fire: Signal<Local, bool>,
    tx_word: Signal<Local, Bits<32>>,
}

impl<const D: usize, const AW: usize, const CW: usize> Default for DemoCore<D, AW, CW> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            fault: Default::default(),
            frames_ok: Default::default(),
            frames_bad: Default::default(),
            data_lfsr: Lfsr32::new(0x1234_5678),
            pace_lfsr: Lfsr32::new(0x0bad_cafe),
            tx_crc: ParallelCrc::new(&CRC32),
            rx_crc: ParallelCrc::new(&CRC32),
            fifo: StreamFifo::new(),
            unused_count: Default::default(),
            tx_index: Default::default(),
            rx_index: Default::default(),
            ok: Default::default(),
            fault_pending: Default::default(),
            checked: Default::default(),
            matched: Default::default(),
            bad: Default::default(),
            last_index: Constant::new(((FRAME_WORDS - 1) as u64).into()),
            bad_max: Constant::new(0xffff_u64.into()),
            tx_fire: Default::default(),
            rx_fire: Default::default(),
            tx_word: Default::default(),
        }
    }
}

impl<const D: usize, const AW: usize, const CW: usize> Logic for DemoCore<D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, data_lfsr, pace_lfsr, tx_crc, rx_crc, fifo);
        self.unused_count.next = self.fifo.count.val();
        dff_setup!(
            self,
            clock,
            tx_index,
            rx_index,
            ok,
            fault_pending,
            checked,
            matched,
            bad
        );
        self.data_lfsr.reset.next = self.reset.val();
        self.pace_lfsr.reset.next = self.reset.val();
        self.tx_crc.reset.next = self.reset.val();
        self.rx_crc.reset.next = self.reset.val();
        self.fifo.reset.next = self.reset.val();
        self.pace_lfsr.advance.next = true;

        // Generator: data words from the LFSR, then the CRC of the frame.
        self.tx_word.next = self.data_lfsr.value.val();
        if self.tx_index.q.val() == self.last_index.val() {
            self.tx_word.next = self.tx_crc.crc.val();
        }
        self.fifo.sink.valid.next = !self.reset.val();
        self.fifo.sink.data.next = self.tx_word.val();
        if self.fault.val() | self.fault_pending.q.val() {
            self.fifo.sink.data.next = self.tx_word.val() ^ 1_u64;
        }
        self.tx_fire.next = self.fifo.sink.valid.val() & self.fifo.sink.ready.val();
        self.fault_pending.d.next =
            (self.fault.val() | self.fault_pending.q.val()) & !self.tx_fire.val();
        self.data_lfsr.advance.next =
            self.tx_fire.val() & (self.tx_index.q.val() != self.last_index.val());
        self.tx_crc.valid.next =
            self.tx_fire.val() & (self.tx_index.q.val() != self.last_index.val());
        self.tx_crc.start.next = self.tx_index.q.val() == 0_u64;
        self.tx_crc.data.next = self.tx_word.val();
        if self.tx_fire.val() {
            // Six bits count 0..=63 and wrap to the next frame.
            self.tx_index.d.next = self.tx_index.q.val() + 1_u64;
        }

        // Checker: ready three cycles in four, CRC over data words, compare on the last.
        self.fifo.source.ready.next = self.pace_lfsr.value.val().get_bits::<2>(0) != 0_u64;
        self.rx_fire.next = self.fifo.source.valid.val() & self.fifo.source.ready.val();
        self.rx_crc.valid.next =
            self.rx_fire.val() & (self.rx_index.q.val() != self.last_index.val());
        self.rx_crc.start.next = self.rx_index.q.val() == 0_u64;
        self.rx_crc.data.next = self.fifo.source.data.val();
        self.checked.d.next = self.rx_fire.val() & (self.rx_index.q.val() == self.last_index.val());
        self.matched.d.next = self.fifo.source.data.val() == self.rx_crc.crc.val();
        if self.rx_fire.val() {
            self.rx_index.d.next = self.rx_index.q.val() + 1_u64;
        }
        if self.checked.q.val() {
            if self.matched.q.val() {
                self.ok.d.next = self.ok.q.val() + 1_u64;
            } else if self.bad.q.val() != self.bad_max.val() {
                self.bad.d.next = self.bad.q.val() + 1_u64;
            }
        }
        self.frames_ok.next = self.ok.q.val();
        self.frames_bad.next = self.bad.q.val();
        if self.reset.val() {
            self.tx_index.d.next = 0.into();
            self.rx_index.d.next = 0.into();
            self.ok.d.next = 0.into();
            self.bad.d.next = 0.into();
            self.checked.d.next = false;
            self.fault_pending.d.next = false;
        }
    }
}

#[test]
fn demo_core_is_synthesizable() {
    let mut uut = DemoCore::<512, 9, 10>::default();
    uut.connect_all();
    yosys_validate("demo_core", &generate_verilog(&uut)).unwrap();
}
