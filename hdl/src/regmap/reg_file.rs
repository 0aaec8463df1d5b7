//! The register file of a [`RegMap`]: the map's registers in hardware, reached through a
//! request port and answered on a response port ([`super::port`]).
//!
//! Hardware side, one `Vec` per access kind, each ordered by the registers' position among
//! those of their kind in map order ([`RegMap::index`] gives it by name); a kind without
//! registers has an empty `Vec`, so no port is ever left unused:
//! - read-write registers drive `settings` (their values) and `written` (high for the one
//!   cycle in which `settings` first shows a value just written, so indirect table access and
//!   doorbells can act on a write; a write of the value already held strobes too);
//! - write-1-to-clear registers are set by `flags` (bit by bit, held until cleared; a set and
//!   a clear of one bit in one cycle leave it set: an event is never lost) and show their bits
//!   on `flag_values`;
//! - counters count `events` pulses in a [`CounterBank`] (saturating, never wrapping; any write
//!   clears the counter, to 1 if an event comes in the same cycle; the written data is ignored);
//! - read-only registers read `status` as it is at the read's second edge.
//!
//! Registers narrower than `D` read back zero-extended (the bits above a register's width are
//! constant zero, so synthesis keeps no flip-flops for them) and a write keeps the low `width`
//! bits. A request to an address where no register is, or a write to a read-only register, is
//! answered with that [`RegError`] and changes nothing (an unmapped read returns zero).
//!
//! Pipeline and timing. Stage 1, on the edge where the request is taken (`valid && ready`):
//! the address is compared with every register's (a one-hot `hits` flip-flop per register, and
//! for a write a one-cycle `writes` strobe per writable register), the operation and write data
//! registered. On the next edge a write takes effect, whether or not the response side is
//! ready (so `response.ready` is not in front of the storage's enables). Stage 2, on the next
//! edge where the response register is free or being emptied: the response (the [`ReadMux`]
//! tree of the selected register, and the error code from the same tree) is registered. So a
//! request taken on the edge that ends cycle `c` is offered on `response` in cycle `c + 2` when
//! the response side is free: **`response.valid` rises two cycles after the accepting edge**
//! (the bench measures it). With `response.ready` high, one request per cycle is taken and
//! answered, indefinitely. Requests take effect and are answered in order, so a read after a
//! write to the same register returns the written value; a write's effect on
//! `settings`/`flag_values` is visible from cycle `c + 2`, the cycle its response is offered
//! when the response side is free (before it when the response waits).
//!
//! Handshake: `request.ready = !reset && (stage 1 empty || stage 1 moves on)`, where stage 1
//! moves on when the response register is empty or `response.ready` is high: one OR gate
//! from `response.ready` to `request.ready`, as in a pipeline without a skid buffer (a skid
//! buffer would cut it at the cost of `2 (D + 3)` more flip-flops and a `D`-bit mux). `response.valid`,
//! `data` and `error` come straight from flip-flops and hold until taken; `data` is zero in
//! write responses.
//!
//! Reset (synchronous, `reset` high on an edge): read-write registers to their reset values,
//! write-1-to-clear registers and counters to zero, `written` low, no request in stage 1 and
//! no response pending. `request.ready` is low during reset, so no request is taken in a reset
//! cycle; a request in stage 1 or a response not yet taken is dropped, and a write in stage 1
//! does not happen. The power-up state of the flip-flops (all zero) is reset's except that
//! read-write registers hold zero instead of their reset values until the first reset.
//!
//! Parameters: `A` address bits and `D` data bits of the ports; every register's address must
//! be below `2^A` and its width at most `D` (checked by [`RegFile::new`], naming the register).
use super::counter_bank::CounterBank;
use super::map::{Access, RegMap};
use super::port::{RegError, RegRequestSink, RegResponseSource, ERROR_BITS};
use super::read_mux::ReadMux;
use rust_hdl::prelude::*;

/// The registers of a map, behind a request/response port.
#[derive(LogicBlock)]
pub struct RegFile<const A: usize, const D: usize> {
    /// Clock of every register.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (see the module documentation).
    pub reset: Signal<In, bool>,
    /// Register requests.
    pub request: RegRequestSink<A, D>,
    /// One response per request, in order.
    pub response: RegResponseSource<D>,
    /// Read-write registers' values (`config` is a Verilog keyword).
    pub settings: Vec<Signal<Out, Bits<D>>>,
    /// Per read-write register: written on the last edge (one cycle).
    pub written: Vec<Signal<Out, bool>>,
    /// Per write-1-to-clear register: bits to set on this edge.
    pub flags: Vec<Signal<In, Bits<D>>>,
    /// Write-1-to-clear registers' values.
    pub flag_values: Vec<Signal<Out, Bits<D>>>,
    /// Per counter: one event this cycle.
    pub events: Vec<Signal<In, bool>>,
    /// Read-only registers' values.
    pub status: Vec<Signal<In, Bits<D>>>,
    setting: Vec<DFF<Bits<D>>>,
    strobe: Vec<DFF<bool>>,
    flag: Vec<DFF<Bits<D>>>,
    counters: CounterBank<D>,
    /// Inputs in kind order: read-write, write-1-to-clear, counters, read-only (marked).
    read: ReadMux<D>,
    /// Stage 1 holds a request.
    staged: DFF<bool>,
    /// Stage 1: the request's address is register `p` (kind order, as `read`'s inputs).
    hits: Vec<DFF<bool>>,
    /// Per writable register `p` (kind order, read-only registers excepted): a write to it
    /// was taken on the last edge, so it takes effect on this one (high for one cycle).
    writes: Vec<DFF<bool>>,
    /// Stage 1: the request is a write.
    writing: DFF<bool>,
    /// Stage 1: the data to write.
    wdata: DFF<Bits<D>>,
    /// The response register holds a response.
    answered: DFF<bool>,
    answer: DFF<Bits<D>>,
    failure: DFF<Bits<ERROR_BITS>>,
    /// Register addresses, kind order.
    offsets: Vec<Constant<Bits<A>>>,
    setting_resets: Vec<Constant<Bits<D>>>,
    /// Per register of a kind: the mask of its width.
    setting_masks: Vec<Constant<Bits<D>>>,
    flag_masks: Vec<Constant<Bits<D>>>,
    status_masks: Vec<Constant<Bits<D>>>,
    zero: Constant<Bits<D>>,
    error_none: Constant<Bits<ERROR_BITS>>,
    error_unmapped: Constant<Bits<ERROR_BITS>>,
    error_read_only: Constant<Bits<ERROR_BITS>>,
    /// A request is taken on this edge.
    accept: Signal<Local, bool>,
    /// Stage 1 moves into the response register on this edge (if it holds a request).
    advance: Signal<Local, bool>,
    /// Position of the first write-1-to-clear, counter and read-only register in kind order.
    _first_flag: usize,
    _first_counter: usize,
    _first_status: usize,
}

/// Constants of `D` bits.
fn constants<const D: usize>(values: impl Iterator<Item = u64>) -> Vec<Constant<Bits<D>>> {
    values.map(|v| Constant::new(Bits::<D>::from(v))).collect()
}

impl<const A: usize, const D: usize> RegFile<A, D> {
    /// The register file of `map`. Panics naming the register or parameter if the map is
    /// invalid, an address does not fit `A` bits, or a register is wider than `D`.
    pub fn new(map: &RegMap) -> Self {
        assert!(
            (1..=64).contains(&D),
            "RegFile: D (data bits) must be 1..=64, got {D}"
        );
        assert!(
            (1..=63).contains(&A),
            "RegFile: A (address bits) must be 1..=63, got {A}"
        );
        map.validate().unwrap_or_else(|e| panic!("RegFile: {e}"));
        for r in &map.registers {
            assert!(
                r.offset >> A == 0,
                "RegFile<A = {A}>: register {} of map {} is at {:#x}, which does not fit A (address bits) = {A}",
                r.name,
                map.name,
                r.offset
            );
            assert!(
                r.width <= D,
                "RegFile<D = {D}>: register {} of map {} is {} bits wide, more than D (data bits) = {D}",
                r.name,
                map.name,
                r.width
            );
        }
        let ordered: Vec<_> = Access::ALL.iter().flat_map(|&a| map.of(a)).collect();
        let n = ordered.len();
        let (rw, w1c, cnt) = (
            map.count(Access::ReadWrite),
            map.count(Access::WriteOneToClear),
            map.count(Access::Counter),
        );
        let ro = map.count(Access::ReadOnly);
        let widths = |a: Access| map.of(a).map(|r| r.mask());
        let counter_widths: Vec<usize> = map.of(Access::Counter).map(|r| r.width).collect();
        let marks: Vec<bool> = ordered
            .iter()
            .map(|r| r.access == Access::ReadOnly)
            .collect();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            request: Default::default(),
            response: Default::default(),
            settings: (0..rw).map(|_| Default::default()).collect(),
            written: (0..rw).map(|_| Default::default()).collect(),
            flags: (0..w1c).map(|_| Default::default()).collect(),
            flag_values: (0..w1c).map(|_| Default::default()).collect(),
            events: (0..cnt).map(|_| Default::default()).collect(),
            status: (0..ro).map(|_| Default::default()).collect(),
            setting: (0..rw).map(|_| Default::default()).collect(),
            strobe: (0..rw).map(|_| Default::default()).collect(),
            flag: (0..w1c).map(|_| Default::default()).collect(),
            counters: CounterBank::new(&counter_widths),
            read: ReadMux::new(&marks),
            staged: Default::default(),
            hits: (0..n).map(|_| Default::default()).collect(),
            writes: (0..rw + w1c + cnt).map(|_| Default::default()).collect(),
            writing: Default::default(),
            wdata: Default::default(),
            answered: Default::default(),
            answer: Default::default(),
            failure: Default::default(),
            offsets: ordered
                .iter()
                .map(|r| Constant::new(Bits::<A>::from(r.offset)))
                .collect(),
            setting_resets: constants(map.of(Access::ReadWrite).map(|r| r.reset)),
            setting_masks: constants(widths(Access::ReadWrite)),
            flag_masks: constants(widths(Access::WriteOneToClear)),
            status_masks: constants(widths(Access::ReadOnly)),
            zero: Constant::new(Bits::<D>::default()),
            error_none: Constant::new(RegError::None.bits()),
            error_unmapped: Constant::new(RegError::Unmapped.bits()),
            error_read_only: Constant::new(RegError::ReadOnly.bits()),
            accept: Default::default(),
            advance: Default::default(),
            _first_flag: rw,
            _first_counter: rw + w1c,
            _first_status: rw + w1c + cnt,
        }
    }
}

impl<const A: usize, const D: usize> Logic for RegFile<A, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, staged, writing, wdata, answered, answer, failure);
        self.counters.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();

        // Handshake.
        self.advance.next = !self.answered.q.val() | self.response.ready.val();
        self.request.ready.next = (!self.staged.q.val() | self.advance.val()) & !self.reset.val();
        self.accept.next = self.request.valid.val() & self.request.ready.val();
        self.response.valid.next = self.answered.q.val();
        self.response.data.next = self.answer.q.val();
        self.response.error.next = self.failure.q.val();

        // Stage 1: decode into one-hot hits. Loaded only when a request is taken, so the
        // address and data lines of idle cycles never enter. A write is decoded apart into a
        // one-cycle strobe per register: it takes effect on the next edge whether or not the
        // response side is ready, so `response.ready` stays out of the storage's enables (it
        // was the critical path through them), and a stalled write still happens once.
        for p in 0..self.hits.len() {
            self.hits[p].clock.next = self.clock.val();
            self.hits[p].d.next = self.hits[p].q.val();
            if self.accept.val() {
                self.hits[p].d.next = self.request.address.val() == self.offsets[p].val();
            }
            self.read.selects[p].next = self.hits[p].q.val();
        }
        for p in 0..self.writes.len() {
            self.writes[p].clock.next = self.clock.val();
            self.writes[p].d.next = self.accept.val()
                & self.request.write.val()
                & (self.request.address.val() == self.offsets[p].val());
        }
        if self.accept.val() {
            self.writing.d.next = self.request.write.val();
            self.wdata.d.next = self.request.data.val();
        }

        // Stage 2, storage: read-write registers.
        for i in 0..self.setting.len() {
            self.setting[i].clock.next = self.clock.val();
            self.setting[i].d.next = self.setting[i].q.val();
            self.strobe[i].clock.next = self.clock.val();
            self.strobe[i].d.next = false;
            if self.writes[i].q.val() {
                self.setting[i].d.next = self.wdata.q.val() & self.setting_masks[i].val();
                self.strobe[i].d.next = true;
            }
            self.settings[i].next = self.setting[i].q.val();
            self.written[i].next = self.strobe[i].q.val();
            self.read.values[i].next = self.setting[i].q.val();
        }
        // Write-1-to-clear registers: the clear first, then the hardware's sets on top.
        for base in self._first_flag..(self._first_flag + 1) {
            for i in 0..self.flag.len() {
                self.flag[i].clock.next = self.clock.val();
                self.flag[i].d.next =
                    (self.flag[i].q.val() | self.flags[i].val()) & self.flag_masks[i].val();
                if self.writes[base + i].q.val() {
                    self.flag[i].d.next = ((self.flag[i].q.val() & !self.wdata.q.val())
                        | self.flags[i].val())
                        & self.flag_masks[i].val();
                }
                self.flag_values[i].next = self.flag[i].q.val();
                self.read.values[base + i].next = self.flag[i].q.val();
            }
        }
        // Counters: any write clears.
        for base in self._first_counter..(self._first_counter + 1) {
            for i in 0..self.events.len() {
                self.counters.events[i].next = self.events[i].val();
                self.counters.clears[i].next = self.writes[base + i].q.val();
                self.read.values[base + i].next = self.counters.values[i].val();
            }
        }
        // Read-only registers: the hardware's value, cut to the register's width.
        for base in self._first_status..(self._first_status + 1) {
            for i in 0..self.status.len() {
                self.read.values[base + i].next = self.status[i].val() & self.status_masks[i].val();
            }
        }

        // Stage 2, response: data from the read mux (zero for writes), error from its tags.
        if self.advance.val() {
            self.answered.d.next = self.staged.q.val();
            self.staged.d.next = false;
            if self.staged.q.val() {
                self.answer.d.next = self.read.value.val();
                if self.writing.q.val() {
                    self.answer.d.next = self.zero.val();
                }
                self.failure.d.next = self.error_none.val();
                if self.writing.q.val() & self.read.marked.val() {
                    self.failure.d.next = self.error_read_only.val();
                }
                if !self.read.any.val() {
                    self.failure.d.next = self.error_unmapped.val();
                }
            }
        }
        if self.accept.val() {
            self.staged.d.next = true;
        }

        if self.reset.val() {
            self.staged.d.next = false;
            self.answered.d.next = false;
            for i in 0..self.setting.len() {
                self.setting[i].d.next = self.setting_resets[i].val();
                self.strobe[i].d.next = false;
            }
            for i in 0..self.flag.len() {
                self.flag[i].d.next = self.zero.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regmap::Register;

    fn small() -> RegMap {
        RegMap::new("small", "test")
            .reg(Register::rw("ctl", 0, 8).reset(0x5a))
            .reg(Register::ro("id", 1, 16))
            .reg(Register::w1c("faults", 2, 4))
            .reg(Register::counter("drops", 3, 3))
            .reg(Register::rw("mode", 5, 1))
    }

    #[test]
    fn reg_file_is_synthesizable() {
        let mut uut = RegFile::<4, 16>::new(&small());
        uut.connect_all();
        yosys_validate("reg_file", &generate_verilog(&uut)).unwrap();
        // Only read-only registers (one kind, no storage).
        let map = RegMap::new("ro", "").reg(Register::ro("a", 0, 8));
        let mut uut = RegFile::<2, 8>::new(&map);
        uut.connect_all();
        yosys_validate("reg_file_ro", &generate_verilog(&uut)).unwrap();
    }

    #[test]
    #[should_panic(
        expected = "RegFile<A = 2>: register mode of map small is at 0x5, which does not fit A (address bits) = 2"
    )]
    fn reg_file_rejects_narrow_address() {
        let _ = RegFile::<2, 16>::new(&small());
    }

    #[test]
    #[should_panic(
        expected = "RegFile<D = 8>: register id of map small is 16 bits wide, more than D (data bits) = 8"
    )]
    fn reg_file_rejects_narrow_data() {
        let _ = RegFile::<4, 8>::new(&small());
    }

    #[test]
    #[should_panic(expected = "RegFile: regmap bad: register x has width 0")]
    fn reg_file_rejects_invalid_map() {
        let _ = RegFile::<4, 8>::new(&RegMap::new("bad", "").reg(Register::rw("x", 0, 0)));
    }
}
