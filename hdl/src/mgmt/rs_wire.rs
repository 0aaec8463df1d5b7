//! RS wire: an RS beat stream passed through unchanged (no register, no logic).
//!
//! Why it exists: neighbouring relay stations of a row sit in one `Vec`, and joining
//! `stations[i].to_right` to `stations[i + 1].from_left` borrows the `Vec` mutably twice, which
//! Rust rejects. Joining each station to a wire of a second `Vec` instead keeps every bundle
//! joined whole; synthesis removes the wire (a zero-stage relay, as FlooNoC's spill chain of
//! depth 0).
//!
//! Ports: `sink`, `source`. Parameters: `B`, `P`.
use super::relay_station::{RsBeatSink, RsBeatSource};
use rust_hdl::prelude::*;

/// `source` is `sink`.
#[derive(LogicBlock, Default)]
pub struct RsWire<const B: usize, const P: usize> {
    /// Beats in.
    pub sink: RsBeatSink<B, P>,
    /// The same beats out.
    pub source: RsBeatSource<B, P>,
}

impl<const B: usize, const P: usize> Logic for RsWire<B, P> {
    #[hdl_gen]
    fn update(&mut self) {
        self.source.valid.next = self.sink.valid.val();
        self.source.data.next = self.sink.data.val();
        self.source.last.next = self.sink.last.val();
        self.source.port.next = self.sink.port.val();
        self.sink.ready.next = self.source.ready.val();
    }
}
