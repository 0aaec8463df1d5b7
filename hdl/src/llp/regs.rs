//! The registers of one link port (issue 12, item 3: "per-port peer identity ... per-port link
//! status and counters (the link layer's map)"; issue 10, item 6: the link's settings): what
//! the link endpoint reports, read-only, as the management plane reads it, and the port's
//! read-write `link_settings` (lane removal, retraining, VC mode), which drives the endpoint.
//! Each chip places one copy per port (the router: one per port under the prefix `port<p>`;
//! the NIC: its network port).
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

/// Registers in one port's block (its window): the eight read-only report registers at
/// 0..=7, `link_settings` at 8, offsets 9..=11 reserved for the BIST registers
/// ([`link_bist_registers`], not wired yet), the rest free.
pub const LINK_PORT_REGISTERS: u64 = 16;
/// Read-only registers of one port's block (offsets 0..=7, one per field of
/// [`LinkReportSource`] but `settings`): a chip's register file holds them in this order.
pub const LINK_REPORT_REGISTERS: usize = 8;
/// Offset of `link_settings` in a port's block.
pub const LINK_SETTINGS_OFFSET: u64 = 8;

/// `register` with `fields`.
fn with_fields(mut register: Register, fields: &[Field]) -> Register {
    for f in fields {
        register = register.field(f.name, f.lsb, f.width, f.doc);
    }
    register
}

/// The block of one link port: the endpoint's report (read-only) and `link_settings`
/// (read-write, resetting to `settings_reset`: the port's configuration,
/// [`LinkPortParams::settings_reset`](crate::link_port::LinkPortParams::settings_reset)).
pub fn link_port_map(settings_reset: u64) -> RegMap {
    RegMap::new(
        "link_port",
        "One link port: its status, peer identity, LTP and retry counts as the link endpoint reports them, and its settings (lane removal, retraining, VC mode).",
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
    .reg(link_settings_register(settings_reset))
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
        let map = link_port_map(0);
        map.validate().unwrap();
        assert!(map.last_offset().unwrap() < LINK_PORT_REGISTERS);
        assert_eq!(LINK_PORT_REGISTERS, 16);
        // The report's registers first, at 0..=7, read-only; `link_settings` at 8, read-write.
        let access: Vec<_> = map.registers.iter().map(|r| (r.offset, r.access)).collect();
        for (k, (offset, a)) in access.iter().enumerate().take(LINK_REPORT_REGISTERS) {
            assert_eq!((*offset, *a), (k as u64, crate::regmap::Access::ReadOnly));
        }
        assert_eq!(map.registers.len(), LINK_REPORT_REGISTERS + 1);
        let settings = map.get("link_settings").unwrap();
        assert_eq!(settings.offset, LINK_SETTINGS_OFFSET);
        assert_eq!(settings.access, crate::regmap::Access::ReadWrite);
        assert_eq!(settings.width, SETTINGS_BITS);
        // The BIST registers' offsets stay free, inside the window.
        for r in link_bist_registers() {
            assert!(map.registers.iter().all(|m| m.offset != r.offset));
            assert!(r.offset < LINK_PORT_REGISTERS);
        }
        check_layout(&STATUS_FIELDS, 20);
        check_layout(&PEER_FIELDS, 29);
        assert_eq!(PEER_CHIP_ID.get(peer_value(1, 0xbeef, 7) as u128), 0xbeef);
    }
}

/// What a link endpoint reports to its chip's register file, one value per register of
/// [`link_port_map`] in its order (the endpoint's side), and the one register that goes the
/// other way: `settings`, the register file's `link_settings`, which drives the endpoint.
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
    /// `link_settings` ([`SETTINGS_FIELDS`]), from the register file INTO the port: the
    /// endpoint's lane threshold, retry limit, lane drain and VC mode, followed every cycle.
    pub settings: Signal<In, Bits<64>>,
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
    /// `link_settings`, the register file's read-write register, to the port.
    pub settings: Signal<Out, Bits<64>>,
}

// ---------------------------------------------------------------------------------------------
// Link settings and BIST (issue 10, item 6). The field layouts are defined here once.
// `link_settings` ([`link_settings_register`]) is part of [`link_port_map`] at offset 8: both
// chips' register files hold it per port and drive the port's `LinkReportSource::settings`
// with it, which the endpoint reads every cycle (`hdl::link_port`). The BIST registers
// ([`link_bist_registers`], offsets 9..=11) are NOT in the map yet: the BIST block exists
// (`hdl::llp::bist`) but no chip wires it to a register file (see `docs/llp-design.md`,
// "Registers and BIST", for what is built and what is not).

/// `link_settings`: lane error score that removes a lane (0: never).
pub const SETTINGS_LANE_THRESHOLD: Field = field(
    "lane_threshold",
    0,
    8,
    "lane error score that removes a lane (0: never remove)",
);
/// `link_settings`: fruitless retry requests in a row before the link trains again.
pub const SETTINGS_RETRY_LIMIT: Field = field(
    "retry_limit",
    8,
    8,
    "retry requests in a row without a delivered LTP before the link trains again (1..255)",
);
/// `link_settings`: delivered LTPs per one-point decrease of the lane scores (the removal
/// rate).
pub const SETTINGS_LANE_DRAIN: Field = field(
    "lane_drain",
    16,
    16,
    "delivered LTPs per one-point decrease of every lane's error score (1..65535)",
);
/// `link_settings`: the VC mode.
pub const SETTINGS_INTERLEAVE: Field = field(
    "interleave",
    32,
    1,
    "VC mode: 1 lets other VCs fill a stalled packet's LTP slots, 0 sends whole packets",
);
/// Every `link_settings` field.
pub const SETTINGS_FIELDS: [Field; 4] = [
    SETTINGS_LANE_THRESHOLD,
    SETTINGS_RETRY_LIMIT,
    SETTINGS_LANE_DRAIN,
    SETTINGS_INTERLEAVE,
];
/// Width of `link_settings`.
pub const SETTINGS_BITS: usize = 33;

/// `bist_control`: start a run (acts when a write sets it; reads back as written).
pub const BIST_START: Field = field(
    "start",
    0,
    1,
    "write 1 to start a run (ignored while one runs)",
);
/// `bist_control`: end the run early.
pub const BIST_STOP: Field = field("stop", 1, 1, "write 1 to end the run early");
/// `bist_control`: intensity.
pub const BIST_INTENSITY: Field = field(
    "intensity",
    4,
    4,
    "a pattern word on each lane in intensity + 1 of every 16 cycles (15: every cycle)",
);
/// `bist_control`: duration.
pub const BIST_DURATION: Field = field("duration", 8, 24, "cycles of the run (0: 2^24)");
/// Every `bist_control` field.
pub const BIST_CONTROL_FIELDS: [Field; 4] = [BIST_START, BIST_STOP, BIST_INTENSITY, BIST_DURATION];
/// Width of `bist_control`.
pub const BIST_CONTROL_BITS: usize = 32;
/// Cycles of a run after reset (`bist_control.duration`): 2^16, about 650 us at 100 MHz, with
/// four lanes 8.4 Mbit of pattern, enough to see a BER of 1e-6 with a few errors.
pub const BIST_DEFAULT_DURATION: u64 = 1 << 16;
/// `bist_control` after reset: the default duration at full intensity, not started.
pub const BIST_CONTROL_RESET: u64 = (BIST_DEFAULT_DURATION << 8) | (15 << 4);

/// `bist_status`: a run is in progress.
pub const BIST_RUNNING: Field = field("running", 0, 1, "a run is in progress");
/// `bist_status`: the last run ended.
pub const BIST_DONE: Field = field("done", 1, 1, "the last run ended (result below)");
/// `bist_status`: ... and passed.
pub const BIST_PASS: Field = field(
    "pass",
    2,
    1,
    "every active lane received pattern words and counted no error, the run completed",
);
/// `bist_status`: the far end did not take part.
pub const BIST_ABSENT: Field = field(
    "absent",
    3,
    1,
    "the far end did not join the run (old peer, no link) or left it (reset, retraining)",
);
/// `bist_status`: stopped.
pub const BIST_STOPPED: Field = field("stopped", 4, 1, "the run was stopped");
/// `bist_status`: the lanes the result covers.
pub const BIST_LANES: Field = field("lanes", 8, 4, "lanes checked (the receive mask)");
/// `bist_status`: the lanes that received pattern words.
pub const BIST_SEEN: Field = field("seen", 12, 4, "lanes that received pattern words");
/// Every `bist_status` field.
pub const BIST_STATUS_FIELDS: [Field; 7] = [
    BIST_RUNNING,
    BIST_DONE,
    BIST_PASS,
    BIST_ABSENT,
    BIST_STOPPED,
    BIST_LANES,
    BIST_SEEN,
];
/// Width of `bist_status`.
pub const BIST_STATUS_BITS: usize = 16;

/// `link_settings` as the settings `lane_threshold`, `retry_limit`, `lane_drain` and
/// `interleave` give it: the register's reset value is this of the port's configuration.
pub fn settings_value(
    lane_threshold: u8,
    retry_limit: u8,
    lane_drain: u16,
    interleave: bool,
) -> u64 {
    let mut v = SETTINGS_LANE_THRESHOLD.set(0, lane_threshold as u128);
    v = SETTINGS_RETRY_LIMIT.set(v, retry_limit as u128);
    v = SETTINGS_LANE_DRAIN.set(v, lane_drain as u128);
    SETTINGS_INTERLEAVE.set(v, interleave as u128) as u64
}

/// `link_settings` (offset 8 of a port's block), resetting to `settings_reset` (from the
/// configuration: [`settings_value`]); the one definition of the register, placed by
/// [`link_port_map`].
pub fn link_settings_register(settings_reset: u64) -> Register {
    with_fields(
        Register::rw("link_settings", LINK_SETTINGS_OFFSET, SETTINGS_BITS)
            .reset(settings_reset)
            .doc("lane removal, retraining and VC mode (reset: the configuration's); the endpoint follows a write at once, a change of the VC mode to whole packets once the packets sent interleaved have ended"),
        &SETTINGS_FIELDS,
    )
}

/// The BIST registers of one port (offsets 9..=11 of its block). NOT wired: no chip places
/// them in its register file yet (the BIST block, `hdl::llp::bist`, is not connected to a
/// link port); [`link_port_map`] keeps their offsets free for them.
pub fn link_bist_registers() -> Vec<Register> {
    vec![
        with_fields(
            Register::rw("bist_control", 9, BIST_CONTROL_BITS)
                .reset(BIST_CONTROL_RESET)
                .doc("link BIST: start, stop, intensity, duration"),
            &BIST_CONTROL_FIELDS,
        ),
        with_fields(
            Register::ro("bist_status", 10, BIST_STATUS_BITS).doc("link BIST: state and result"),
            &BIST_STATUS_FIELDS,
        ),
        Register::ro("bist_errors", 11, 64)
            .doc("link BIST: errors per physical lane, lane n at bits 16n..16n+15, saturating"),
    ]
}

#[cfg(test)]
mod control_tests {
    use super::*;
    use crate::formats::field::check_layout;

    #[test]
    fn control_registers_are_valid_and_reset_to_the_configuration() {
        let cfg = crate::params::Config::default();
        let reset = crate::link_port::LinkPortParams::router(&cfg).settings_reset();
        let link = cfg.link;
        assert_eq!(
            reset,
            settings_value(
                link.lane_threshold as u8,
                link.retry_limit as u8,
                link.lane_drain as u16,
                true,
            )
        );
        let map = link_bist_registers()
            .into_iter()
            .fold(link_port_map(reset), |m, r| m.reg(r));
        map.validate().unwrap();
        check_layout(&SETTINGS_FIELDS, SETTINGS_BITS);
        check_layout(&BIST_CONTROL_FIELDS, BIST_CONTROL_BITS);
        check_layout(&BIST_STATUS_FIELDS, BIST_STATUS_BITS);
        let r = map.get("link_settings").unwrap().reset as u128;
        assert_eq!(SETTINGS_LANE_THRESHOLD.get(r), link.lane_threshold as u128);
        assert_eq!(SETTINGS_RETRY_LIMIT.get(r), link.retry_limit as u128);
        assert_eq!(SETTINGS_LANE_DRAIN.get(r), link.lane_drain as u128);
        assert_eq!(SETTINGS_INTERLEAVE.get(r), 1);
        let b = map.get("bist_control").unwrap().reset as u128;
        assert_eq!(BIST_DURATION.get(b), BIST_DEFAULT_DURATION as u128);
        assert_eq!(BIST_INTENSITY.get(b), 15);
        assert_eq!(BIST_START.get(b), 0);
        assert_eq!(
            BIST_DURATION.width,
            crate::llp::bist::bist_control::DURATION_BITS
        );
        assert_eq!(
            BIST_INTENSITY.width,
            crate::llp::bist::bist_control::INTENSITY_BITS
        );
        assert!(map.last_offset().unwrap() < 2 * LINK_PORT_REGISTERS);
    }
}
