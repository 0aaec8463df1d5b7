//! The glue of a relay-station row: [`RsWire`] between neighbours and [`RsRowEnd`] at the
//! row's left end.
//!
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

/// The left end of a relay-station row: what the leftmost station's `from_left` and `to_left`
/// are joined to. `source` offers nothing (no station further left sends packets toward the
/// NMA); `sink` is always ready, and the leftmost station never offers on its `to_left` (it
/// drops outbound packets for ports not in the row instead, see
/// [`super::relay_station`]), so nothing arrives there.
///
/// Ports: `sink`, `source`. Parameters: `B`, `P`.
#[derive(LogicBlock, Default)]
pub struct RsRowEnd<const B: usize, const P: usize> {
    /// Joined to the leftmost station's `to_left` (never valid).
    pub sink: RsBeatSink<B, P>,
    /// Joined to the leftmost station's `from_left` (never valid).
    pub source: RsBeatSource<B, P>,
    /// The fields of `sink` and `source.ready`, read only to mark them unused on purpose:
    /// nothing ever arrives or is offered here.
    unused_valid: Signal<Local, bool>,
    unused_data: Signal<Local, Bits<B>>,
    unused_last: Signal<Local, bool>,
    unused_port: Signal<Local, Bits<P>>,
    unused_ready: Signal<Local, bool>,
}

impl<const B: usize, const P: usize> Logic for RsRowEnd<B, P> {
    #[hdl_gen]
    fn update(&mut self) {
        self.source.valid.next = false;
        self.source.data.next = 0.into();
        self.source.last.next = false;
        self.source.port.next = 0.into();
        self.sink.ready.next = true;
        self.unused_valid.next = self.sink.valid.val();
        self.unused_data.next = self.sink.data.val();
        self.unused_last.next = self.sink.last.val();
        self.unused_port.next = self.sink.port.val();
        self.unused_ready.next = self.source.ready.val();
    }
}
