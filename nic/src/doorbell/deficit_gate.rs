//! Byte fairness for the doorbell arbiter: a deficit round robin whose charges come after the
//! grant.
//!
//! Round robin over doorbells gives each function the same number of descriptors, not the
//! same bytes: with PUTs of random size a function's share of the wire wanders far from equal
//! (13.6 % off after 100,000 cycles with PUTs of 1 to 4,096 bytes, `bench nic-put`). A
//! doorbell's size is not known when it is granted (the descriptor is still in host memory),
//! so the gate charges a function when its descriptor leaves the fetch (`charge`: function
//! and bytes), and keeps the arbiter away from functions that have overdrawn.
//!
//! Each function has a credit, in 64-byte units, `BIAS + deficit` (no signed arithmetic),
//! stored with its top bit flipped so that a flip-flop's power-up 0 is a deficit of 0 (a
//! function is served from the first cycle, reset or not): `eligible[f] = requests[f]` while `enable` is low; while high, only functions
//! whose credit is at least `BIAS` (deficit not negative) are eligible. A charge of `n` bytes
//! takes `ceil(n / 64)` units (at most [`MAX_CHARGE_UNITS`], 1 MB, so a long PUT cannot wrap
//! the counter) from its function's credit, saturating at 0. When some function requests but
//! none of the requesting ones is eligible (every one has overdrawn), every credit gains the
//! quantum [`QUANTUM_UNITS`] (2 KB), up to `BIAS + quantum`: an idle function banks at most
//! one quantum. That cycle grants nothing.
//!
//! So among functions that keep doorbells queued, the bytes each is charged differ by at most
//! the quantum plus the largest descriptor in flight (one of each function may be granted
//! before its charge lands), whatever the sizes; a function alone is never held back by more
//! than `charge / quantum` replenish cycles, which overlap its own transfer.
//!
//! **Reset** (synchronous), and while `enable` is low: every deficit 0 (as at power-up).
//!
//! Parameters (elaboration): `N` functions, 1..=8.
use super::{ChargeSink, MAX_FUNCTIONS};
use hdl::formats::nic::FUNCTION_BITS;
use rust_hdl::prelude::*;

/// Bits of a credit.
pub const CREDIT_BITS: usize = 20;
/// A credit of `BIAS` is a deficit of zero: bit [`CREDIT_BITS`]` - 1`.
pub const BIAS: u64 = 1 << (CREDIT_BITS - 1);
/// Units added to every credit when all requesting functions have overdrawn (2 KB).
pub const QUANTUM_UNITS: u64 = 32;
/// The largest charge, in units (1 MB).
pub const MAX_CHARGE_UNITS: u64 = 1 << 14;
/// Bytes per unit, log2.
pub const UNIT_SHIFT: usize = 6;

/// The credit units `bytes` cost: `ceil(bytes / 64)`, at most [`MAX_CHARGE_UNITS`].
pub fn charge_units(bytes: u64) -> u64 {
    bytes.div_ceil(1 << UNIT_SHIFT).min(MAX_CHARGE_UNITS)
}

/// The gate; see the module documentation.
#[derive(LogicBlock)]
pub struct DeficitGate {
    /// Clock of the credits.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every deficit zero.
    pub reset: Signal<In, bool>,
    /// Byte fairness on (else every request passes and the credits rest at zero deficit).
    pub enable: Signal<In, bool>,
    /// Per function: it has doorbells queued.
    pub requests: Vec<Signal<In, bool>>,
    /// Per function: the arbiter may grant it.
    pub eligible: Vec<Signal<Out, bool>>,
    /// Descriptors leaving the fetch: their function pays their bytes.
    pub charge: ChargeSink,
    /// Per function: (`BIAS` + deficit, in units) XOR `BIAS`.
    stored: Vec<DFF<Bits<CREDIT_BITS>>>,
    /// Per function: `BIAS` + deficit.
    credits: Vec<Signal<Local, Bits<CREDIT_BITS>>>,
    ids: Vec<Constant<Bits<FUNCTION_BITS>>>,
    bias: Constant<Bits<CREDIT_BITS>>,
    quantum: Constant<Bits<CREDIT_BITS>>,
    /// `BIAS + QUANTUM_UNITS`: the most a credit holds.
    ceiling: Constant<Bits<CREDIT_BITS>>,
    /// [`MAX_CHARGE_UNITS`].
    max_units: Constant<Bits<CREDIT_BITS>>,
    one: Constant<Bits<CREDIT_BITS>>,
    /// The charge in units.
    units: Signal<Local, Bits<CREDIT_BITS>>,
    /// Some function requests; some requesting function is eligible.
    any_request: Signal<Local, bool>,
    any_eligible: Signal<Local, bool>,
    /// Every credit gains the quantum on this edge.
    replenish: Signal<Local, bool>,
    /// Per function: its credit after the replenish, before the charge.
    raised: Vec<Signal<Local, Bits<CREDIT_BITS>>>,
}

impl DeficitGate {
    /// A gate over `n` functions (1..=8).
    pub fn new(n: usize) -> Self {
        assert!(
            (1..=MAX_FUNCTIONS).contains(&n),
            "DeficitGate: n (functions) = {n} must be 1..={MAX_FUNCTIONS}"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            requests: (0..n).map(|_| Default::default()).collect(),
            eligible: (0..n).map(|_| Default::default()).collect(),
            charge: Default::default(),
            stored: (0..n).map(|_| Default::default()).collect(),
            credits: (0..n).map(|_| Default::default()).collect(),
            ids: (0..n).map(|i| Constant::new(i.to_bits())).collect(),
            bias: Constant::new(BIAS.to_bits()),
            quantum: Constant::new(QUANTUM_UNITS.to_bits()),
            ceiling: Constant::new((BIAS + QUANTUM_UNITS).to_bits()),
            max_units: Constant::new(MAX_CHARGE_UNITS.to_bits()),
            one: Constant::new(1u64.to_bits()),
            units: Default::default(),
            any_request: Default::default(),
            any_eligible: Default::default(),
            replenish: Default::default(),
            raised: (0..n).map(|_| Default::default()).collect(),
        }
    }
}

impl Logic for DeficitGate {
    #[hdl_gen]
    fn update(&mut self) {
        // The charge in units: ceil(bytes / 64), at most MAX_CHARGE_UNITS (bytes of 2^20 or
        // more saturate).
        self.units.next = bit_cast::<CREDIT_BITS, 14>(self.charge.bytes.val().get_bits::<14>(6));
        if self.charge.bytes.val().get_bits::<6>(0).any() {
            self.units.next = self.units.val() + self.one.val();
        }
        if self.charge.bytes.val().get_bits::<12>(20).any() {
            self.units.next = self.max_units.val();
        }
        // Who may be granted.
        self.any_request.next = false;
        self.any_eligible.next = false;
        for f in 0..self.credits.len() {
            self.credits[f].next = self.stored[f].q.val() ^ self.bias.val();
            self.eligible[f].next = self.requests[f].val()
                & (!self.enable.val() | (self.credits[f].val() >= self.bias.val()));
            self.any_request.next = self.any_request.val() | self.requests[f].val();
            self.any_eligible.next = self.any_eligible.val() | self.eligible[f].val();
        }
        self.replenish.next = self.enable.val() & self.any_request.val() & !self.any_eligible.val();
        // Credits: the quantum (up to the ceiling), then the charge (down to 0).
        for f in 0..self.credits.len() {
            self.stored[f].clock.next = self.clock.val();
            self.raised[f].next = self.credits[f].val();
            if self.replenish.val() {
                self.raised[f].next = self.ceiling.val();
                if self.credits[f].val() < self.ceiling.val() - self.quantum.val() {
                    self.raised[f].next = self.credits[f].val() + self.quantum.val();
                }
            }
            self.stored[f].d.next = self.raised[f].val() ^ self.bias.val();
            if self.charge.valid.val() & (self.charge.function.val() == self.ids[f].val()) {
                // Saturating at a credit of 0 (stored: BIAS).
                self.stored[f].d.next = self.bias.val();
                if self.raised[f].val() >= self.units.val() {
                    self.stored[f].d.next =
                        (self.raised[f].val() - self.units.val()) ^ self.bias.val();
                }
            }
            if self.reset.val() | !self.enable.val() {
                self.stored[f].d.next = 0.into();
            }
        }
    }
}

#[test]
fn deficit_gate_is_synthesizable() {
    for n in [1, 8] {
        let mut uut = DeficitGate::new(n);
        uut.connect_all();
        yosys_validate(&format!("deficit_gate_{n}"), &generate_verilog(&uut)).unwrap();
    }
}
