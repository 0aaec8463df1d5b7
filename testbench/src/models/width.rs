//! Reference models of the width converters (`hdl::width`): the chunking itself
//! ([`split`], [`join`]) and the cycle-level handshake contract of each block.
use std::collections::VecDeque;

/// Mask of the low `n` bits.
fn mask(n: usize) -> u128 {
    crate::backend::mask(n)
}

/// The `ceil(w / b)` chunks of a `w`-bit word, least significant first, the last zero-padded.
pub fn split(word: u128, w: usize, b: usize) -> Vec<u128> {
    let word = word & mask(w);
    (0..w.div_ceil(b))
        .map(|k| {
            if k * b >= 128 {
                0
            } else {
                (word >> (k * b)) & mask(b)
            }
        })
        .collect()
}

/// The `w`-bit word of `ceil(w / b)` chunks (padding above bit `w` ignored).
pub fn join(chunks: &[u128], w: usize, b: usize) -> u128 {
    assert_eq!(chunks.len(), w.div_ceil(b), "join: wrong number of chunks");
    let mut word = 0u128;
    for (k, &c) in chunks.iter().enumerate() {
        if k * b < 128 {
            word |= (c & mask(b)) << (k * b);
        }
    }
    word & mask(w)
}

/// Port values of a converter in one cycle (`data` and `last` mean something only with `valid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConverterOutputs {
    /// `sink.ready`.
    pub sink_ready: bool,
    /// `source.valid`.
    pub valid: bool,
    /// `source.data`.
    pub data: u128,
    /// `last` (downsizer only; true for the upsizer).
    pub last: bool,
}

/// Cycle-level contract of `Downsizer<W, B, _>`: a held word's chunks leave one per accepted
/// beat, and a new word is taken when none is held or the held word's last chunk leaves.
/// With one chunk per word it is a wire.
#[derive(Clone, Debug)]
pub struct DownsizerModel {
    w: usize,
    b: usize,
    /// Chunks of the held word still to leave.
    pending: VecDeque<u128>,
}

impl DownsizerModel {
    /// The model of a `w`-to-`b` downsizer after reset.
    pub fn new(w: usize, b: usize) -> Self {
        Self {
            w,
            b,
            pending: VecDeque::new(),
        }
    }
    fn single(&self) -> bool {
        self.w <= self.b
    }
    /// Reset: the held word dropped.
    pub fn reset(&mut self) {
        self.pending.clear();
    }
    /// Outputs for these inputs.
    pub fn outputs(
        &self,
        sink_valid: bool,
        sink_data: u128,
        source_ready: bool,
    ) -> ConverterOutputs {
        if self.single() {
            return ConverterOutputs {
                sink_ready: source_ready,
                valid: sink_valid,
                data: sink_data & mask(self.w),
                last: true,
            };
        }
        let ending = self.pending.len() == 1 && source_ready;
        ConverterOutputs {
            sink_ready: self.pending.is_empty() || ending,
            valid: !self.pending.is_empty(),
            data: self.pending.front().copied().unwrap_or(0),
            last: self.pending.len() == 1,
        }
    }
    /// One rising edge.
    pub fn edge(&mut self, reset: bool, sink_valid: bool, sink_data: u128, source_ready: bool) {
        if self.single() {
            return;
        }
        let o = self.outputs(sink_valid, sink_data, source_ready);
        if o.valid && source_ready {
            self.pending.pop_front();
        }
        if sink_valid && o.sink_ready {
            self.pending = split(sink_data, self.w, self.b).into();
        }
        if reset {
            self.reset();
        }
    }
}

/// Cycle-level contract of `Upsizer<W, B, _>`: chunks are taken while no finished word waits
/// (or it leaves on this edge); the `K`-th chunk finishes the word, offered from the next cycle.
/// With one chunk per word it is a wire.
#[derive(Clone, Debug)]
pub struct UpsizerModel {
    w: usize,
    b: usize,
    /// Chunks of the word being assembled.
    parts: Vec<u128>,
    /// The finished word on `source`.
    done: Option<u128>,
}

impl UpsizerModel {
    /// The model of a `b`-to-`w` upsizer after reset.
    pub fn new(w: usize, b: usize) -> Self {
        Self {
            w,
            b,
            parts: vec![],
            done: None,
        }
    }
    fn single(&self) -> bool {
        self.w <= self.b
    }
    /// Reset: the partial and the finished word dropped.
    pub fn reset(&mut self) {
        self.parts.clear();
        self.done = None;
    }
    /// Outputs for these inputs.
    pub fn outputs(
        &self,
        sink_valid: bool,
        sink_data: u128,
        source_ready: bool,
    ) -> ConverterOutputs {
        if self.single() {
            return ConverterOutputs {
                sink_ready: source_ready,
                valid: sink_valid,
                data: sink_data & mask(self.w),
                last: true,
            };
        }
        ConverterOutputs {
            sink_ready: self.done.is_none() || source_ready,
            valid: self.done.is_some(),
            data: self.done.unwrap_or(0),
            last: true,
        }
    }
    /// One rising edge.
    pub fn edge(&mut self, reset: bool, sink_valid: bool, sink_data: u128, source_ready: bool) {
        if self.single() {
            return;
        }
        let o = self.outputs(sink_valid, sink_data, source_ready);
        if o.valid && source_ready {
            self.done = None;
        }
        if sink_valid && o.sink_ready {
            self.parts.push(sink_data & mask(self.b));
            if self.parts.len() == self.w.div_ceil(self.b) {
                self.done = Some(join(&self.parts, self.w, self.b));
                self.parts.clear();
            }
        }
        if reset {
            self.reset();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_join_round_trip() {
        let w = 0x1_2345_6789_ABCD_EF01u128; // 65 bits
        let c = split(w, 65, 20);
        assert_eq!(c, vec![0xDEF01, 0x89ABC, 0x34567, 0x12]);
        assert_eq!(join(&c, 65, 20), w);
        assert_eq!(split(0xABCD, 16, 20), vec![0xABCD]);
    }
}
