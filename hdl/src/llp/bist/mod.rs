//! Link BIST (built-in self-test, issue 10 item 6): a PRBS-31 pattern over every active lane
//! for a set duration and intensity, checked per lane at the far end, errors counted per lane.
//!
//! Blocks: [`PrbsStep`](prbs_step::PrbsStep) (the pattern's next 32-bit word, combinational,
//! shared by sender and checker), [`PrbsGen`](prbs_gen::PrbsGen) (one lane's sender),
//! [`PrbsCheck`](prbs_check::PrbsCheck) (one lane's self-synchronising checker with its error
//! count), [`BistLanes`](bist_lanes::BistLanes) (the four lanes of both) and
//! [`BistControl`](bist_control::BistControl) (start, stop, duration, intensity, the request to
//! the link trainer, the result). The Rust definitions here ([`prbs31_next`], [`lane_seed`],
//! [`sends`]) are the one definition the hardware, the models and the benches use.
//!
//! **Pattern.** PRBS-31 (x^31 + x^28 + 1, ITU-T O.150): sequence bits `s[n] = s[n-31] ^
//! s[n-28]`, 32 per lane and cycle, word bit `k` being the `k`-th in time. A word determines
//! the next (its top 31 bits are the last 31 sequence bits), which is what makes the checker
//! self-synchronising: it predicts each received word from the one before, so it needs no seed
//! and no alignment with the sender, and the first word it receives only primes it. Each lane's
//! generator starts from its own seed ([`lane_seed`]) so that crossed or shorted lanes do not
//! carry the same words.
//!
//! **Why PRBS-31 and why per word.** PRBS-31 is the longest standard pattern (runs of up to
//! 30 equal bits stress clock recovery and baseline wander); 32 bits a cycle costs one shift
//! and two XORs per bit, about 40 LUTs and 32 flip-flops per lane for each of sender and
//! checker.
//!
//! **Errors** (per lane, 16-bit saturating): a received word that differs from the prediction
//! (a bit error corrupts its word's comparison and, when it lies among the top 31 bits, the
//! next word's prediction too: one bit error counts one or two), a word whose top 31 bits are
//! all zero (PRBS-31 never has more than 30 zeros in a row: this catches a lane stuck at zero,
//! which would predict itself), and [`SILENCE_LIMIT`] cycles in a row with no word after the
//! first (a lane that died; the sender leaves at most 15 cycles in a row empty). A lane that
//! never received a word is not `seen` and fails.
//!
//! **Intensity** (4 bits, `i`): a lane carries a pattern word in `i + 1` of every 16 cycles
//! (the first `i + 1` of a free-running 16-cycle phase, [`sends`]): 15 is every cycle, the
//! worst case for crosstalk, supply noise and the receiver's clock recovery; lower values
//! leave gaps, the link's look when lightly loaded (a lane with `valid` low idles), so a margin
//! problem that needs dense traffic shows as a difference between the two.
pub mod bist_control;
pub mod bist_lanes;
pub mod prbs_check;
pub mod prbs_gen;
pub mod prbs_step;

/// Cycles in a row without a word, after the first word, that count one error on a checked
/// lane (and start the count again). Above the sender's longest gap (15 cycles at intensity 0)
/// plus the skew between the two ends' starts and ends of a run.
pub const SILENCE_LIMIT: u32 = 64;

/// The PRBS-31 word that follows `word` (bit 0 of `word` is not used).
pub fn prbs31_next(word: u32) -> u32 {
    let low = (word >> 1) ^ (word >> 4);
    low ^ (low << 28) ^ (low << 31)
}

/// The first word lane `lane` sends after a start (non-zero in bits 31..1, distinct per lane).
pub fn lane_seed(lane: usize) -> u32 {
    const SEEDS: [u32; 4] = [0xACE1_2468, 0x1357_9BDF, 0xF0E1_D2C3, 0x5A5A_A5A4];
    SEEDS[lane]
}

/// Whether a lane carries a pattern word at `phase` (0..16) with intensity `intensity`.
pub fn sends(phase: u32, intensity: u32) -> bool {
    (phase & 15) <= (intensity & 15)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word step against the bit-serial definition `s[n] = s[n-31] ^ s[n-28]`.
    #[test]
    fn word_step_is_the_serial_prbs31() {
        let mut bits: Vec<u32> = (0..32).map(|k| (lane_seed(0) >> k) & 1).collect();
        let mut word = lane_seed(0);
        for _ in 0..200 {
            let n0 = bits.len();
            for k in 0..32 {
                let b = bits[n0 + k - 31] ^ bits[n0 + k - 28];
                bits.push(b);
            }
            word = prbs31_next(word);
            let serial = (0..32).fold(0u32, |w, k| w | (bits[n0 + k] << k));
            assert_eq!(word, serial);
            assert_ne!(word >> 1, 0, "31 zeros never occur in PRBS-31");
        }
    }

    #[test]
    fn seeds_are_distinct_and_live() {
        for a in 0..4 {
            assert_ne!(lane_seed(a) >> 1, 0);
            for b in 0..a {
                assert_ne!(lane_seed(a), lane_seed(b));
            }
        }
    }
}

#[cfg(test)]
mod cost {
    /// Writes the Verilog of the BIST's lane side and sequencer to `$BIST_VERILOG_DIR` (for a
    /// cost measurement with `yosys synth_ice40`); does nothing without it.
    #[test]
    fn write_verilog_for_cost() {
        use rust_hdl::prelude::*;
        let Ok(dir) = std::env::var("BIST_VERILOG_DIR") else {
            return;
        };
        let mut lanes = super::bist_lanes::BistLanes::default();
        lanes.connect_all();
        std::fs::write(format!("{dir}/bist_lanes.v"), generate_verilog(&lanes)).unwrap();
        let mut control = super::bist_control::BistControl::new(4096);
        control.connect_all();
        std::fs::write(format!("{dir}/bist_control.v"), generate_verilog(&control)).unwrap();
    }
}
