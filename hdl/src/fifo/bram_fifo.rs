//! Block-RAM FIFO: `D` slots in rust-hdl's `RAM` (registered read; `SB_RAM40_4K` on iCE40),
//! for deep depths, at one beat per cycle.
//!
//! Structure. State is the head address `rptr`, the occupancy `fill` (the `count` output) and
//! one flag; the write address is `rptr + fill`. The RAM's read register *is* the output
//! stage: its read address is the head address of the next cycle (`rptr + pop`), so after
//! every edge `read_data` holds the head slot, re-read each cycle. The head slot cannot be
//! overwritten while it is held (it is written only when the FIFO is full, and then nothing
//! is written), so `source.data` is stable under backpressure with no extra data register. A
//! slot written on an edge is read on the next one, hence `source.valid` is a flag register,
//! set when the head after the edge was written on an earlier edge: `valid' = count - pop > 0`.
//!
//! Read-during-write: rust-hdl's `RAM` is read-first, which iCE40 block RAMs do not guarantee,
//! so Yosys adds about 35 LUTs and 70 flip-flops of emulation unless it can prove that an
//! enabled write never hits the slot being read. Here the slot read is the slot written only
//! when it will not be shown the next cycle (`push` while `count - pop == 0`); then bit 0 of
//! the read address is flipped. As both addresses are sums of `rptr`, Yosys's SAT check sees
//! that they always differ ("don't care on collision" in its log) and maps the bare RAM.
//!
//! Handshake and timing, cycle by cycle (`count` = beats accepted and not yet popped):
//! - a beat accepted in cycle `c` is offered on `source` from cycle `c + 2` (latency 2;
//!   `count` already includes it in cycle `c + 1`, while `source.valid` may still be low);
//! - with `source.ready` held high and a beat offered every cycle, one beat per cycle moves
//!   in and out with two beats held; a burst drains at one beat per cycle;
//! - `sink.ready == !full` (`count == D`, the top bit of `count`), from flip-flops only: a
//!   full FIFO refuses a beat even in a cycle where it pops one;
//! - `source.valid` is a flip-flop; `source.data` is the RAM's output register;
//! - synchronous `reset` empties the FIFO; the RAM keeps stale data that is never shown again.
//!   The power-up state (every flip-flop 0) is the empty FIFO too;
//! - no fall-through (the write-to-read path of a block RAM is a clock edge).
//!
//! Parameters: `T` beat type; `D` depth (slots, a power of two >= 4: the RAM has `2^AW` words
//! anyway, addresses wrap by themselves, and `full` is one bit; at full rate two beats are
//! held and a third must be accepted, which a full FIFO of two would refuse); `AW` address width
//! ([`fifo_ptr_bits`](super::fifo_ptr_bits)`(D)`); `CW` width of `count`
//! ([`fifo_count_bits`](super::fifo_count_bits)`(D)` = `AW + 1`). Use
//! [`bram_fifo!`](crate::bram_fifo) to fill the widths in.
use crate::stream::{StreamSink, StreamSource};
use rust_hdl::prelude::*;

/// FIFO of `D` beats held in a block RAM, latency 2, one beat per cycle.
#[derive(LogicBlock)]
pub struct BramFifo<T: Synth, const D: usize, const AW: usize, const CW: usize> {
    /// Clock of every register and of the RAM.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: empties the FIFO.
    pub reset: Signal<In, bool>,
    /// Beats in; `ready` is `!full`.
    pub sink: StreamSink<T>,
    /// Beats out, in order.
    pub source: StreamSource<T>,
    /// Beats accepted and not yet popped, 0 to `D`.
    pub count: Signal<Out, Bits<CW>>,
    ram: RAM<T, AW>,
    /// Address of the head slot.
    rptr: DFF<Bits<AW>>,
    /// Beats held (the `count` output).
    fill: DFF<Bits<CW>>,
    /// The RAM's output register holds the head beat.
    shown: DFF<bool>,
    full: Signal<Local, bool>,
    push: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    /// `shown` after this edge.
    shows: Signal<Local, bool>,
    /// Head address after this edge.
    rnext: Signal<Local, Bits<AW>>,
    /// `fill` without its top bit, as an address offset.
    offset: Signal<Local, Bits<AW>>,
    /// +1 or -1 for `fill`.
    step: Signal<Local, Bits<CW>>,
    /// `D`, the count when full (a power of two: its one bit is `full`).
    depth: Constant<Bits<CW>>,
    /// Address bit 0.
    bit0: Constant<Bits<AW>>,
    /// The count value 1.
    one: Constant<Bits<CW>>,
    /// -1 as a count.
    all_ones: Constant<Bits<CW>>,
}

impl<T: Synth, const D: usize, const AW: usize, const CW: usize> BramFifo<T, D, AW, CW> {
    /// A FIFO of `D` slots. Panics unless `D` is a power of two >= 4 and `AW`/`CW` match it.
    pub fn new() -> Self {
        assert!(
            D >= 4 && D.is_power_of_two(),
            "BramFifo: D (depth) is {D}; a block-RAM FIFO needs a power of two >= 4"
        );
        super::check_ptr_width("BramFifo", D, AW);
        super::check_count_width("BramFifo", D, CW);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            count: Default::default(),
            ram: Default::default(),
            rptr: Default::default(),
            fill: Default::default(),
            shown: Default::default(),
            full: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            shows: Default::default(),
            rnext: Default::default(),
            offset: Default::default(),
            step: Default::default(),
            depth: Constant::new(D.to_bits()),
            bit0: Constant::new(1usize.to_bits()),
            one: Constant::new(1usize.to_bits()),
            all_ones: Constant::new(((1usize << CW) - 1).to_bits()),
        }
    }
}

impl<T: Synth, const D: usize, const AW: usize, const CW: usize> Default
    for BramFifo<T, D, AW, CW>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Synth, const D: usize, const AW: usize, const CW: usize> Logic for BramFifo<T, D, AW, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rptr, fill, shown);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.full.next = (self.fill.q.val() & self.depth.val()).any();
        self.count.next = self.fill.q.val();
        self.sink.ready.next = !self.full.val();
        self.source.valid.next = self.shown.q.val();
        self.source.data.next = self.ram.read_data.val();
        self.push.next = self.sink.valid.val() & !self.full.val();
        self.pop.next = self.source.ready.val() & self.shown.q.val();
        // The head after this edge was written on an earlier edge iff count - pop > 0.
        self.shows.next = self.fill.q.val().any();
        if self.pop.val() {
            self.shows.next = self.fill.q.val() != self.one.val();
        }
        self.shown.d.next = self.shows.val();
        // Write side: the first free slot, `count` slots after the head.
        self.offset.next = bit_cast::<AW, CW>(self.fill.q.val());
        self.ram.write_enable.next = self.push.val();
        self.ram.write_address.next = self.rptr.q.val() + self.offset.val();
        self.ram.write_data.next = self.sink.data.val();
        // Read side: fetch the slot that is the head after this edge. That slot is the one
        // being written exactly when it will not be shown (`push & !shows`); then read its
        // neighbour instead (flip bit 0). Both addresses are sums of `rptr`, so Yosys proves
        // the read and write addresses of an enabled write always differ.
        self.rnext.next = self.rptr.q.val() + self.pop.val();
        self.rptr.d.next = self.rnext.val();
        self.ram.read_address.next = self.rnext.val();
        if self.push.val() & !self.shows.val() {
            self.ram.read_address.next = self.rnext.val() ^ self.bit0.val();
        }
        // One adder of +1 or -1 (all ones), enabled when exactly one beat moves.
        self.step.next = self.one.val();
        if self.pop.val() {
            self.step.next = self.all_ones.val();
        }
        if self.push.val() ^ self.pop.val() {
            self.fill.d.next = self.fill.q.val() + self.step.val();
        }
        if self.reset.val() {
            self.rptr.d.next = 0.into();
            self.fill.d.next = 0.into();
            self.shown.d.next = false;
        }
    }
}

#[test]
fn bram_fifo_is_synthesizable() {
    let mut uut = BramFifo::<Bits<16>, 32, 5, 6>::new();
    uut.connect_all();
    yosys_validate("bram_fifo", &generate_verilog(&uut)).unwrap();
    let mut uut = BramFifo::<Bits<16>, 4, 2, 3>::new();
    uut.connect_all();
    yosys_validate("bram_fifo_4", &generate_verilog(&uut)).unwrap();
}

#[test]
#[should_panic(expected = "D (depth)")]
fn bram_fifo_rejects_depth_24() {
    let _ = BramFifo::<Bits<8>, 24, 5, 5>::new();
}

#[test]
#[should_panic(expected = "D (depth)")]
fn bram_fifo_rejects_depth_2() {
    let _ = BramFifo::<Bits<8>, 2, 1, 2>::new();
}

/// The read-address dodge must let Yosys map the RAM with no read-during-write emulation
/// (which would add about 35 LUTs and 70 flip-flops at this size).
#[test]
fn bram_fifo_maps_to_bare_block_ram() {
    let mut uut = BramFifo::<Bits<32>, 32, 5, 6>::new();
    uut.connect_all();
    let dir = std::env::temp_dir().join(format!("hpcnet_bram_fifo_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("top.v");
    std::fs::write(&file, generate_verilog(&uut)).unwrap();
    let out = std::process::Command::new("yosys")
        .arg("-p")
        .arg("synth_ice40 -top top; stat")
        .arg(&file)
        .output()
        .expect("run yosys");
    let _ = std::fs::remove_dir_all(&dir);
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "yosys failed:\n{log}");
    assert!(
        log.contains("don't care on collision"),
        "Yosys did not prove the read and write addresses apart"
    );
    let stat = &log[log.rfind("Number of cells").expect("stat output")..];
    let cells = |prefix: &str| -> u64 {
        stat.lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                match (w.next(), w.next()) {
                    (Some(c), Some(n)) if c.starts_with(prefix) => n.parse::<u64>().ok(),
                    _ => None,
                }
            })
            .sum()
    };
    assert_eq!(cells("SB_RAM40_4K"), 2, "32 x 32 bits is two block RAMs");
    assert!(cells("SB_DFF") <= 12, "{} flip-flops", cells("SB_DFF"));
    assert!(cells("SB_LUT4") <= 30, "{} LUTs", cells("SB_LUT4"));
}
