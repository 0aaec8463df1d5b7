//! The registers of one link port (issue 12, item 3: "per-port peer identity ... per-port link
//! status and counters (the link layer's map)"): what the link endpoint reports, read-only, as
//! the management plane reads it. Each chip places one copy per port (the router: one per port
//! under the prefix `port<p>`; the NIC: its network port).
//!
//! The fields of the two packed registers (`link_status`, `peer`) are defined once here; the
//! chip drives them from its link endpoint (the peer identity is learned at link bring-up, the
//! link-layer issue's training handshake; until then a chip drives `valid` low).
use crate::formats::Field;
use crate::regmap::{RegMap, Register};
use rust_hdl::prelude::*;

const fn field(name: &'static str, lsb: usize, width: usize, doc: &'static str) -> Field {
    Field {
        name,
        lsb,
        width,
        doc,
    }
}

/// `link_status`: the link is up (trained and carrying flits).
pub const STATUS_UP: Field = field("up", 0, 1, "the link is up");
/// `link_status`: transmit width in lanes.
pub const STATUS_TX_WIDTH: Field = field("tx_width", 1, 3, "lanes the transmitter uses");
/// `link_status`: receive width in lanes.
pub const STATUS_RX_WIDTH: Field = field("rx_width", 4, 3, "lanes the receiver uses");
/// `link_status`: transmit lane mask.
pub const STATUS_TX_MASK: Field = field("tx_mask", 8, 4, "lanes in use, transmit side");
/// `link_status`: receive lane mask.
pub const STATUS_RX_MASK: Field = field("rx_mask", 12, 4, "lanes in use, receive side");
/// `link_status`: lanes removed since reset.
pub const STATUS_LANES_REMOVED: Field = field("lanes_removed", 16, 3, "lanes removed as bad");
/// `link_status`: the link is dead (nothing acknowledged for a long time) and its port
/// discards what the chip sends on it (`hdl::link_port`), until reset.
pub const STATUS_STALLED: Field = field(
    "stalled",
    19,
    1,
    "the link is dead: nothing acknowledged for the watchdog's limit; the port discards what the chip sends on it until reset",
);
/// Every `link_status` field.
pub const STATUS_FIELDS: [Field; 7] = [
    STATUS_UP,
    STATUS_TX_WIDTH,
    STATUS_RX_WIDTH,
    STATUS_TX_MASK,
    STATUS_RX_MASK,
    STATUS_LANES_REMOVED,
    STATUS_STALLED,
];

/// `peer`: the identity below was learned from the far end.
pub const PEER_VALID: Field = field("valid", 0, 1, "the far end's identity is known");
/// `peer`: the far end's chip type (DestType code: 0 NIC, 1 NRC).
pub const PEER_TYPE: Field = field("chip_type", 1, 2, "far end chip type (0 NIC, 1 NRC)");
/// `peer`: the far end's chip ID.
pub const PEER_CHIP_ID: Field = field("chip_id", 8, 16, "far end chip ID");
/// `peer`: the far end's port number.
pub const PEER_PORT: Field = field("port", 24, 5, "far end port number");
/// Every `peer` field.
pub const PEER_FIELDS: [Field; 4] = [PEER_VALID, PEER_TYPE, PEER_CHIP_ID, PEER_PORT];

/// Registers in one port's block (its window).
pub const LINK_PORT_REGISTERS: u64 = 8;

/// `register` with `fields`.
fn with_fields(mut register: Register, fields: &[Field]) -> Register {
    for f in fields {
        register = register.field(f.name, f.lsb, f.width, f.doc);
    }
    register
}

/// The read-only block of one link port.
pub fn link_port_map() -> RegMap {
    RegMap::new(
        "link_port",
        "One link port as the link endpoint reports it: status, peer identity, LTP and retry counts.",
    )
    .reg(with_fields(
        Register::ro("link_status", 0, 20).doc("link state, widths and lane masks"),
        &STATUS_FIELDS,
    ))
    .reg(with_fields(
        Register::ro("peer", 1, 29).doc("identity of the chip at the far end of the link"),
        &PEER_FIELDS,
    ))
    .reg(Register::ro("ltps_sent", 2, 32).doc("link transfer packets sent"))
    .reg(Register::ro("ltps_good", 3, 32).doc("link transfer packets received with a good CRC"))
    .reg(Register::ro("ltps_bad", 4, 32).doc("link transfer packets received with a bad CRC"))
    .reg(Register::ro("retries", 5, 16).doc("retry requests sent"))
    .reg(Register::ro("replays", 6, 16).doc("replays performed"))
    .reg(with_fields(
        Register::ro("drops", 7, 32).doc("flits dropped by the receiver"),
        &[
            field("dirty", 0, 16, "packets dropped on receive as dirty, every reason (saturating)"),
            field("core", 16, 16, "flits the core could not take"),
        ],
    ))
}

/// A `peer` register value.
pub fn peer_value(chip_type: u8, chip_id: u16, port: u8) -> u64 {
    let mut v = PEER_VALID.set(0, 1);
    v = PEER_TYPE.set(v, chip_type as u128);
    v = PEER_CHIP_ID.set(v, chip_id as u128);
    PEER_PORT.set(v, port as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::field::check_layout;

    #[test]
    fn link_port_map_is_valid_and_fits_its_window() {
        let map = link_port_map();
        map.validate().unwrap();
        assert!(map.last_offset().unwrap() < LINK_PORT_REGISTERS);
        check_layout(&STATUS_FIELDS, 20);
        check_layout(&PEER_FIELDS, 29);
        assert_eq!(PEER_CHIP_ID.get(peer_value(1, 0xbeef, 7) as u128), 0xbeef);
    }
}

/// What a link endpoint reports to its chip's register file, one value per register of
/// [`link_port_map`] in its order (the endpoint's side).
#[derive(LogicInterface, Default)]
#[join = "LinkReportSink"]
pub struct LinkReportSource {
    /// `link_status` ([`STATUS_FIELDS`]).
    pub status: Signal<Out, Bits<64>>,
    /// `peer` ([`PEER_FIELDS`]).
    pub peer: Signal<Out, Bits<64>>,
    /// `ltps_sent`.
    pub ltps_sent: Signal<Out, Bits<64>>,
    /// `ltps_good`.
    pub ltps_good: Signal<Out, Bits<64>>,
    /// `ltps_bad`.
    pub ltps_bad: Signal<Out, Bits<64>>,
    /// `retries`.
    pub retries: Signal<Out, Bits<64>>,
    /// `replays`.
    pub replays: Signal<Out, Bits<64>>,
    /// `drops`.
    pub drops: Signal<Out, Bits<64>>,
}

/// The register file's side of [`LinkReportSource`].
#[derive(LogicInterface, Default)]
#[join = "LinkReportSource"]
pub struct LinkReportSink {
    /// `link_status`.
    pub status: Signal<In, Bits<64>>,
    /// `peer`.
    pub peer: Signal<In, Bits<64>>,
    /// `ltps_sent`.
    pub ltps_sent: Signal<In, Bits<64>>,
    /// `ltps_good`.
    pub ltps_good: Signal<In, Bits<64>>,
    /// `ltps_bad`.
    pub ltps_bad: Signal<In, Bits<64>>,
    /// `retries`.
    pub retries: Signal<In, Bits<64>>,
    /// `replays`.
    pub replays: Signal<In, Bits<64>>,
    /// `drops`.
    pub drops: Signal<In, Bits<64>>,
}
