//! `regfile_sample`: a sample register map of 64 registers that exists to exercise and measure
//! the register-map machinery (register file, counter bank, C header, Markdown reference)
//! until the chips' own maps arrive. It is shaped like a link port's registers as the
//! management spec describes them (settings, an indirect table reached through address/data
//! registers, fault report-enable and mask registers, sticky faults, counters, status and peer
//! identity) and covers every access kind, widths from 1 to 64 bits, and fields; it is emitted
//! as the top `regfile_sample` (with `SAMPLE_ADDRESS_BITS` and `SAMPLE_DATA_BITS`) and as
//! `verilog-out/regfile_sample.h` and `.md`.
//!
//! The addresses leave holes (0x0b..=0x0f, 0x1c..=0x1f, ...) so that unmapped addresses
//! inside the map's range are exercised too.
use super::map::{RegMap, Register};

/// Address bits of the sample register file: the NIC's 12-bit register address.
pub const SAMPLE_ADDRESS_BITS: usize = 12;
/// Data bits: registers are 64 bits on the management interface.
pub const SAMPLE_DATA_BITS: usize = 64;

/// The sample map (64 registers).
pub fn regfile_sample() -> RegMap {
    let mut m = RegMap::new(
        "regfile_sample",
        "Sample register map of 64 registers, shaped like a link port's, that exercises and measures the register-map machinery until the chips' own maps arrive.",
    )
    // Settings (read-write): 0x00..0x0a.
    .reg(
        Register::rw("control", 0x00, 8)
            .reset(0x01)
            .doc("port control")
            .field("enable", 0, 1, "the port may train and carry traffic")
            .field("loopback", 1, 1, "loop transmitted flits back to the receiver")
            .field("interleave", 2, 1, "let other VCs fill a stalled packet's slots")
            .field("bist", 3, 1, "run the link built-in self test")
            .field("vc_enable", 4, 4, "one bit per virtual channel"),
    )
    .reg(
        Register::rw("retry_timeout", 0x01, 16)
            .reset(256)
            .doc("cycles a receiver waits for the retry marker before asking again"),
    )
    .reg(
        Register::rw("rt_timeout", 0x02, 16)
            .reset(256)
            .doc("cycles a transmitter waits for a round-trip echo before polling"),
    )
    .reg(
        Register::rw("lane_threshold", 0x03, 8)
            .reset(16)
            .doc("errors within a window that remove a lane (0: never)"),
    )
    .reg(
        Register::rw("lane_window", 0x04, 32)
            .reset(1 << 20)
            .doc("cycles of the lane error window"),
    )
    .reg(
        Register::rw("report_enable", 0x05, 16)
            .reset(0xffff)
            .doc("faults reported actively to the management server, one bit per fault of `faults`"),
    )
    .reg(
        Register::rw("fault_mask", 0x06, 16)
            .doc("faults masked from `fault_summary` and active reports, one bit per fault"),
    )
    .reg(
        Register::rw("table_address", 0x07, 10)
            .doc("entry of the routing table reached through `table_data` (indirect access)"),
    )
    .reg(
        Register::rw("table_data", 0x08, 64)
            .doc("writing it stores the entry at `table_address` (the `written` strobe starts the table write)")
            .field("ports", 0, 24, "allowed output ports, one bit per port")
            .field("valid", 63, 1, "the entry is in use"),
    )
    .reg(
        Register::rw("bist_duration", 0x09, 32)
            .reset(1_000_000)
            .doc("cycles a link self test runs"),
    )
    .reg(
        Register::rw("bist_pattern", 0x0a, 64)
            .reset(0x5555_aaaa_3333_cccc)
            .doc("seed of the self-test pattern generator"),
    );
    // Scratch registers: software's own (read-write, no hardware meaning); 0x10..0x14.
    for i in 0..5u64 {
        m = m.reg(
            Register::rw(format!("scratch{i}"), 0x10 + i, 64)
                .doc("scratch register for software (no effect on the hardware)"),
        );
    }
    // Sticky faults (write-1-to-clear): 0x18..0x1b and 0x38..0x3b.
    m = m
        .reg(
            Register::w1c("faults", 0x18, 16)
                .doc("sticky link faults, set by the hardware")
                .field(
                    "link_down",
                    0,
                    1,
                    "the receiver lost step with the far transmitter",
                )
                .field("lane_removed", 1, 1, "a lane was removed for errors")
                .field("crc_burst", 2, 1, "a burst of LTP CRC errors")
                .field(
                    "credit_error",
                    3,
                    1,
                    "the far end returned more credits than it had",
                )
                .field("overflow", 4, 1, "a receive buffer overflowed")
                .field("bist_fail", 5, 1, "the link self test saw a mismatch")
                .field("lane_faults", 8, 4, "one bit per lane that saw an error"),
        )
        .reg(
            Register::w1c("vc_faults", 0x19, 8)
                .doc("per virtual channel: a dirty packet was dropped"),
        )
        .reg(Register::w1c("bist_done", 0x1a, 1).doc("the link self test finished"))
        .reg(Register::w1c("table_parity", 0x1b, 32).doc("parity errors per table bank"));
    for i in 0..4u64 {
        m = m.reg(
            Register::w1c(format!("lane{i}_events"), 0x38 + i, 4)
                .doc("lane events: bit 0 symbol error, 1 lost lock, 2 deskew, 3 polarity"),
        );
    }
    // Counters: 0x20..0x37.
    let counters: [(&str, usize, &str); 24] = [
        ("ltps_sent", 48, "normal LTPs sent, replays included"),
        ("nulls_sent", 32, "null LTPs sent"),
        ("ltps_good", 48, "LTPs received and delivered"),
        ("ltps_bad", 32, "LTPs rejected (CRC, sequence, framing)"),
        ("ltps_dup", 32, "replayed duplicates dropped"),
        ("retries", 32, "retry requests made"),
        ("replays", 32, "replays made for the far end"),
        ("flits_sent", 48, "flits sent"),
        ("flits_received", 48, "flits received"),
        ("packets_sent", 40, "packets sent"),
        ("packets_received", 40, "packets received"),
        ("dirty_drops", 16, "dirty packets dropped on receive"),
        (
            "core_drops",
            16,
            "flits from the core that were not its to send",
        ),
        ("credit_stalls", 32, "cycles a VC waited for credits"),
        ("lane0_errors", 16, "errors on lane 0"),
        ("lane1_errors", 16, "errors on lane 1"),
        ("lane2_errors", 16, "errors on lane 2"),
        ("lane3_errors", 16, "errors on lane 3"),
        ("lanes_removed", 8, "lanes removed on the receive side"),
        ("link_downs", 8, "times the link went down"),
        ("bist_errors", 24, "mismatches seen by the link self test"),
        ("table_writes", 16, "routing-table entries written"),
        ("fault_reports", 16, "active fault reports sent"),
        ("management_packets", 32, "management packets received"),
    ];
    for (i, (name, width, doc)) in counters.into_iter().enumerate() {
        m = m.reg(Register::counter(name, 0x20 + i as u64, width).doc(doc));
    }
    // Status (read-only): 0x40..0x4f.
    m = m
        .reg(
            Register::ro("identity", 0x40, 64)
                .doc("this chip's identity")
                .field("chip_id", 0, 32, "unique chip number")
                .field("chip_type", 32, 4, "1 NIC, 2 NRC")
                .field("port", 36, 5, "this port's number"),
        )
        .reg(
            Register::ro("peer_identity", 0x41, 64)
                .doc("the far end's identity, learned when the link trains (topology discovery)")
                .field("chip_id", 0, 32, "the peer chip's number")
                .field("chip_type", 32, 4, "1 NIC, 2 NRC, 0 none")
                .field("port", 36, 5, "the peer's port number"),
        )
        .reg(
            Register::ro("link_status", 0x42, 16)
                .doc("link state")
                .field(
                    "link_up",
                    0,
                    1,
                    "the receiver is in step with the far transmitter",
                )
                .field("tx_lanes", 4, 4, "lanes we send on")
                .field("rx_lanes", 8, 4, "lanes we receive on")
                .field("tx_width", 12, 3, "number of lanes we send on"),
        )
        .reg(Register::ro("replay_fill", 0x43, 16).doc("LTPs in the replay buffer"));
    for v in 0..8u64 {
        m = m.reg(
            Register::ro(format!("vc{v}_credits"), 0x44 + v, 13)
                .doc("credits available to this virtual channel"),
        );
    }
    m.reg(
        Register::ro("fault_summary", 0x4c, 16)
            .doc("`faults` and not `fault_mask`: what is reported"),
    )
    .reg(Register::ro("bist_result", 0x4d, 1).doc("the last link self test passed"))
    .reg(Register::ro("temperature", 0x4e, 12).doc("die temperature sensor reading"))
    .reg(Register::ro("timestamp", 0x4f, 64).doc("free-running cycle counter of the chip"))
}

#[test]
fn sample_map_is_valid_with_every_kind() {
    use super::map::Access;
    let m = regfile_sample();
    m.validate().unwrap();
    assert_eq!(m.registers.len(), 64);
    for a in Access::ALL {
        assert!(m.count(a) > 0, "no {a} register");
    }
    assert!(m.registers.iter().any(|r| r.width == 1));
    assert!(m.registers.iter().any(|r| r.width == 64));
    assert!(m.last_offset().unwrap() < 1 << SAMPLE_ADDRESS_BITS);
}
