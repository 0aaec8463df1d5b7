//! Reference model of `CreditCounter`: credits of one receive buffer seen by the sender.

/// Cycle-accurate model of a credit counter.
#[derive(Clone, Debug)]
pub struct CreditCounterModel {
    initial: u64,
    /// Credits after reset: `initial`, or 0 when starting empty.
    after_reset: u64,
    width: usize,
    credits: u64,
    error: bool,
}

impl CreditCounterModel {
    /// A counter of `width` bits starting (and resetting) at `initial` credits.
    pub fn new(width: usize, initial: u64) -> Self {
        assert!(initial >= 1 && initial < (1 << width));
        Self {
            initial,
            after_reset: initial,
            width,
            credits: initial,
            error: false,
        }
    }
    /// A counter of `width` bits that resets empty and holds up to `capacity` credits
    /// (`CreditCounter::starting_empty`). Before its first reset it is full, as the hardware's
    /// all-zero power-up state is.
    pub fn starting_empty(width: usize, capacity: u64) -> Self {
        Self {
            after_reset: 0,
            ..Self::new(width, capacity)
        }
    }
    /// Credits right after a reset.
    pub fn after_reset(&self) -> u64 {
        self.after_reset
    }
    /// Back to the reset credits, error cleared.
    pub fn reset(&mut self) {
        self.credits = self.after_reset;
        self.error = false;
    }
    /// Credits available now.
    pub fn available(&self) -> u64 {
        self.credits
    }
    /// The sticky error flag.
    pub fn error(&self) -> bool {
        self.error
    }
    /// Applies a clock edge: `consume` spends one credit, `returned` gives credits back.
    /// A consume without credit is ignored and a total above `initial` saturates; both set the
    /// error flag. Returns whether this edge was a violation.
    pub fn edge(&mut self, consume: bool, returned: u64) -> bool {
        assert!(returned < (1 << self.width));
        let underflow = consume && self.credits == 0;
        let spent = self.credits - (consume && !underflow) as u64;
        let total = spent + returned;
        let overflow = total > self.initial;
        self.credits = if overflow { self.initial } else { total };
        self.error |= underflow || overflow;
        underflow || overflow
    }
}
