//! Reference model of `CreditCounter`: credits of one receive buffer seen by the sender.

/// Cycle-accurate model of a credit counter.
#[derive(Clone, Debug)]
pub struct CreditCounterModel {
    initial: u64,
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
            width,
            credits: initial,
            error: false,
        }
    }
    /// Back to `initial` credits, error cleared.
    pub fn reset(&mut self) {
        self.credits = self.initial;
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
