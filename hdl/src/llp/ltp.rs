//! The link transfer packet (LTP) and how it is striped over lanes: the software definition
//! that the hardware striper and collector, their benches, and the link channel model share.
//!
//! An LTP is 1056 bits: 16 flits (flit `i` at bits `65i .. 65i+64`), then a 16-bit trailer at
//! bits 1040..1055: the check in bits 0..13 and the two credit sideband bits in bits 14..15.
//! The check is the CRC-14 of the 16 flits and then the 2 sideband bits ([`ltp_crc`]), XOR the
//! sequence number's low 14 bits for a normal LTP (so a lost LTP fails the next one's check),
//! XOR the sequence state shifted to bits 12..13 ([`STATE_SHIFT`]: a receiver whose lane
//! rotation differs from the sender's fails the check). It leaves as 33 transfers (XFRs) of 32
//! bits, XFR `j` = bits `32j .. 32j+31`.
//!
//! **Credit sideband** (the digest's "2 control bits (credit sideband)"): a normal LTP with
//! sequence number `s` returns [`sideband_credits`]`(code)` credits of VC [`sideband_vc`]`(s)`,
//! delivered with the LTP (exactly once, as its flits); a null LTP carries code 0. The sender
//! decides the code when it builds the LTP and keeps it with the LTP in its replay buffer, so a
//! replay carries the same credits. CrdtRet flits return what the sideband cannot.
//!
//! Lane rotation: a counter `g` of XFRs runs across LTPs from the last (re)start of the link;
//! XFR `g` goes on logical lane `g mod L` in beat `g div L`, so an LTP's first XFR lands on
//! lane `(33 k) mod L` for the k-th LTP: its sequence state (4 states at L = 4). Logical lane
//! `n` is the `n`-th set bit of the active-lane mask.
use super::lane_channel::MAX_LANES;
use crate::crc::CRC14;
use crate::formats::FLIT_BITS;

/// Flits in an LTP.
pub const LTP_FLITS: usize = 16;
/// XFRs in an LTP.
pub const LTP_XFRS: usize = 33;
/// Bits in an LTP.
pub const LTP_BITS: usize = 1056;
/// Bits of the trailer (check and credit sideband).
pub const TRAILER_BITS: usize = 16;
/// Bits of the trailer's check field.
pub const CHECK_BITS: usize = 14;
/// Where the sequence state is XORed into the check.
pub const STATE_SHIFT: usize = 12;
/// Where the credit sideband sits in the trailer.
pub const SIDEBAND_SHIFT: usize = 14;
/// Credits per unit of the sideband code: codes 0, 1, 2, 3 return 0, 1, 2 and 4 units.
/// A protocol constant, not a configuration value: the two ends may have different buffer
/// sizes, and each must decode what the other sends.
pub const SIDEBAND_UNIT: u16 = 4;

/// The credits sideband `code` returns.
pub fn sideband_credits(code: u8) -> u16 {
    SIDEBAND_UNIT * [0, 1, 2, 4][code as usize & 3]
}

/// The largest sideband code whose credits do not exceed `owed`.
pub fn sideband_code(owed: u64) -> u8 {
    (0..4u8)
        .rev()
        .find(|&c| sideband_credits(c) as u64 <= owed)
        .unwrap_or(0)
}

/// The VC whose credits the sideband of the LTP with sequence number `seq` returns, on a link
/// of `vcs` VCs: `seq mod P` for `P` the power of two at or above `vcs`, none when that is
/// `vcs` or more (so a power-of-two mask picks it in hardware, no division).
pub fn sideband_vc(seq: u64, vcs: usize) -> Option<usize> {
    let v = (seq & sideband_vc_mask(vcs)) as usize;
    (v < vcs).then_some(v)
}

/// `P - 1` for [`sideband_vc`]: the sequence number's bits that name the sideband's VC (the
/// hardware's constant on both ends).
pub fn sideband_vc_mask(vcs: usize) -> u64 {
    vcs.next_power_of_two() as u64 - 1
}

/// The CRC-14 of an LTP's flits, flit 0 first, bit 0 of each flit first (as the 65-bit
/// `hdl::crc::Crc14x65` computes it one flit per cycle), then of the 2 sideband bits (bit 0
/// first).
pub fn ltp_crc(flits: &[u128; LTP_FLITS], sideband: u8) -> u16 {
    let mut d = CRC14.digest();
    for f in flits {
        d.update_word(*f, FLIT_BITS);
    }
    d.update_word(sideband as u128 & 3, 2);
    d.finish() as u16
}

/// The trailer: `check` (the CRC, XOR the sequence number's low bits for a normal LTP) XOR
/// the sequence `state` at [`STATE_SHIFT`] in bits 0..13, `sideband` in bits 14..15.
pub fn trailer(check: u16, state: u8, sideband: u8) -> u16 {
    ((check ^ ((state as u16 & 3) << STATE_SHIFT)) & 0x3fff)
        | ((sideband as u16 & 3) << SIDEBAND_SHIFT)
}

/// The 33 XFRs of an LTP.
pub fn ltp_to_xfrs(flits: &[u128; LTP_FLITS], trailer: u16) -> [u32; LTP_XFRS] {
    let bit = |b: usize| -> u32 {
        if b < 1040 {
            ((flits[b / FLIT_BITS] >> (b % FLIT_BITS)) & 1) as u32
        } else {
            ((trailer >> (b - 1040)) & 1) as u32
        }
    };
    std::array::from_fn(|j| (0..32).fold(0u32, |x, m| x | (bit(32 * j + m) << m)))
}

/// The flits and trailer of 33 XFRs (the inverse of [`ltp_to_xfrs`]).
pub fn xfrs_to_ltp(xfrs: &[u32; LTP_XFRS]) -> ([u128; LTP_FLITS], u16) {
    let bit = |b: usize| ((xfrs[b / 32] >> (b % 32)) & 1) as u128;
    let flits = std::array::from_fn(|i| {
        (0..FLIT_BITS).fold(0u128, |x, k| x | (bit(FLIT_BITS * i + k) << k))
    });
    let trailer = (0..16).fold(0u16, |x, k| x | ((bit(1040 + k) as u16) << k));
    (flits, trailer)
}

/// Active lanes of a mask, in logical order.
pub fn active_lanes(mask: u8) -> Vec<usize> {
    (0..MAX_LANES).filter(|n| mask >> n & 1 == 1).collect()
}

/// The physical lane and beat of XFR number `g` (counted since the last restart) at `mask`.
pub fn placement(g: u64, mask: u8) -> (usize, u64) {
    let lanes = active_lanes(mask);
    assert!(!lanes.is_empty(), "no active lane");
    let l = lanes.len() as u64;
    (lanes[(g % l) as usize], g / l)
}

/// The sequence state (logical lane of the first XFR) of the `k`-th LTP since a restart.
pub fn sequence_state(k: u64, lanes: usize) -> u8 {
    ((LTP_XFRS as u64 * k) % lanes as u64) as u8
}

/// One beat on the lane channel, by physical lane: bit `n` of `valid`/`start` and `data[n]`
/// belong to physical lane `n` (data of lanes not valid is 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beat {
    /// Lanes carrying an XFR.
    pub valid: u8,
    /// Lanes carrying XFR 0 of an LTP.
    pub start: u8,
    /// The XFR of each lane.
    pub data: [u32; MAX_LANES],
}

/// The beats the transmitter sends for `ltps` (their 33 XFRs each) at lane `mask`, starting
/// from a (re)start of the rotation (XFR counter 0).
///
/// XFRs pack densely, `L` = active lanes per beat, XFR `g` (counted from the last restart) on
/// logical lane `g mod L`. The flag of an LTP says whether the next LTP followed it *in time*:
/// if not, and its last XFR leaves its beat partly empty, that partial beat is sent as it is
/// (valid only on the used logical lanes) and the rotation restarts, so the next LTP begins on
/// logical lane 0 of a new beat with sequence state 0. If it did, the next LTP's XFRs complete
/// the beat. The flag of the last LTP is ignored: its partial beat is always sent.
/// (`hdl::llp::LtpStriper`: "in time" = the next LTP's flit 0 is accepted in the cycle after
/// the previous LTP's trailer.)
pub fn stripe(ltps: &[([u32; LTP_XFRS], bool)], mask: u8) -> Vec<Beat> {
    let lanes = active_lanes(mask);
    assert!(!lanes.is_empty(), "no active lane");
    let mut beats = vec![];
    let mut cur: Vec<(u32, bool)> = vec![];
    let flush = |cur: &mut Vec<(u32, bool)>, beats: &mut Vec<Beat>| {
        let mut b = Beat::default();
        for (n, &(x, s)) in cur.iter().enumerate() {
            let p = lanes[n];
            b.valid |= 1 << p;
            b.start |= (s as u8) << p;
            b.data[p] = x;
        }
        beats.push(b);
        cur.clear();
    };
    for (k, (xfrs, in_time)) in ltps.iter().enumerate() {
        for (j, &x) in xfrs.iter().enumerate() {
            cur.push((x, j == 0));
            if cur.len() == lanes.len() {
                flush(&mut cur, &mut beats);
            }
        }
        if (!in_time || k + 1 == ltps.len()) && !cur.is_empty() {
            flush(&mut cur, &mut beats);
        }
    }
    beats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_sizes() {
        assert_eq!(LTP_FLITS * FLIT_BITS + TRAILER_BITS, LTP_BITS);
        assert_eq!(LTP_XFRS * 32, LTP_BITS);
    }

    /// Hand-computed from the layout: flit i starts in XFR 2i at bit offset i.
    #[test]
    fn xfr_layout_by_hand() {
        let mut flits = [0u128; LTP_FLITS];
        flits[0] = crate::formats::FLIT_MASK; // flit 0 all ones: XFRs 0, 1 full, XFR 2 bit 0
        let x = ltp_to_xfrs(&flits, 0);
        assert_eq!((x[0], x[1], x[2], x[3]), (u32::MAX, u32::MAX, 1, 0));
        let mut flits = [0u128; LTP_FLITS];
        flits[3] = 1; // flit 3 bit 0 = LTP bit 195 = XFR 6 bit 3
        assert_eq!(ltp_to_xfrs(&flits, 0)[6], 1 << 3);
        flits[3] = 1 << 64; // flit 3 bit 64 = LTP bit 259 = XFR 8 bit 3
        assert_eq!(ltp_to_xfrs(&flits, 0)[8], 1 << 3);
        // Trailer in the top half of XFR 32, flit 15's top 16 bits in its bottom half.
        let x = ltp_to_xfrs(&[0; LTP_FLITS], 0xabcd);
        assert_eq!(x[32], 0xabcd << 16);
    }

    #[test]
    fn round_trip() {
        let mut s = 0x1234_5678_9abc_def0_u64;
        for _ in 0..50 {
            let flits: [u128; LTP_FLITS] = std::array::from_fn(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s as u128) << 1 | (s as u128 >> 63)) & crate::formats::FLIT_MASK
            });
            let t = trailer(ltp_crc(&flits, (s & 3) as u8), (s & 3) as u8, (s & 3) as u8);
            assert_eq!(xfrs_to_ltp(&ltp_to_xfrs(&flits, t)), (flits, t));
        }
    }

    /// Sideband codes, their VC by sequence number, and the check covering the sideband bits.
    #[test]
    fn sideband_by_hand() {
        assert_eq!(
            (0..4).map(sideband_credits).collect::<Vec<_>>(),
            [0, 4, 8, 16]
        );
        assert_eq!(
            [0, 3, 4, 7, 8, 15, 16, 99].map(sideband_code),
            [0, 0, 1, 1, 2, 2, 3, 3]
        );
        // Two VCs alternate; six use eight sequence numbers, two of them without a VC.
        assert_eq!(sideband_vc(5, 2), Some(1));
        assert_eq!(sideband_vc(13, 6), Some(5));
        assert_eq!(sideband_vc(14, 6), None);
        assert_eq!(sideband_vc(7, 1), Some(0));
        // A flipped sideband bit changes the check: a receiver catches it.
        let flits = [0x1_2345_6789_abcd_ef01u128; LTP_FLITS];
        for sb in 0..4u8 {
            for flip in 1..4u8 {
                assert_ne!(ltp_crc(&flits, sb), ltp_crc(&flits, sb ^ flip));
            }
        }
        let t = trailer(0x3fff, 3, 2);
        assert_eq!((t & 0x3fff, t >> SIDEBAND_SHIFT), (0x0fff, 2));
    }

    /// The digest's four sequence states at 4 lanes: 33 XFRs advance the lane by one.
    #[test]
    fn sequence_states_rotate() {
        assert_eq!(
            (0..5).map(|k| sequence_state(k, 4)).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 0]
        );
        assert_eq!(
            (0..4).map(|k| sequence_state(k, 3)).collect::<Vec<_>>(),
            vec![0, 0, 0, 0]
        );
        assert_eq!(
            (0..3).map(|k| sequence_state(k, 2)).collect::<Vec<_>>(),
            vec![0, 1, 0]
        );
        // Lanes 0 and 2 removed: logical lanes 0, 1 are physical 1, 3.
        assert_eq!(placement(0, 0b1010), (1, 0));
        assert_eq!(placement(1, 0b1010), (3, 0));
        assert_eq!(placement(2, 0b1010), (1, 1));
        assert_eq!(placement(33, 0b1111), (1, 8));
    }

    fn numbered(k: u32) -> [u32; LTP_XFRS] {
        std::array::from_fn(|j| k << 8 | j as u32)
    }

    /// Back to back, the beats follow `placement` and each LTP starts at its `sequence_state`.
    #[test]
    fn stripe_dense_follows_placement() {
        for mask in 1u8..16 {
            let l = active_lanes(mask);
            let ltps: Vec<_> = (0..5).map(|k| (numbered(k), true)).collect();
            let beats = stripe(&ltps, mask);
            assert_eq!(beats.len(), (5 * LTP_XFRS).div_ceil(l.len()));
            for g in 0..5 * LTP_XFRS as u64 {
                let (p, beat) = placement(g, mask);
                let b = &beats[beat as usize];
                let (k, j) = (g / 33, g % 33);
                assert_eq!(b.data[p], (k as u32) << 8 | j as u32, "mask {mask:b} g {g}");
                assert!(b.valid >> p & 1 == 1);
                assert_eq!(b.start >> p & 1 == 1, j == 0);
                if j == 0 {
                    assert_eq!(l[sequence_state(k, l.len()) as usize], p);
                }
            }
            let last = beats.last().unwrap();
            assert_eq!(last.valid.count_ones() as usize, (5 * 33 - 1) % l.len() + 1);
        }
    }

    /// Not in time: a partial beat, then the next LTP on logical lane 0 of a new beat.
    #[test]
    fn stripe_partial_beats_restart() {
        // Lanes 1 and 3: 33 XFRs = 16 full beats and one beat with only lane 1.
        let beats = stripe(&[(numbered(0), false), (numbered(1), true)], 0b1010);
        assert_eq!(beats.len(), 34);
        assert_eq!(beats[16].valid, 0b0010);
        assert_eq!(beats[16].data, [0, 32, 0, 0]);
        assert_eq!((beats[17].valid, beats[17].start), (0b1010, 0b0010));
        assert_eq!(beats[17].data, [0, 1 << 8, 0, 1 << 8 | 1]);
        // In time: the next LTP completes the beat (sequence state 1 at two lanes).
        let beats = stripe(&[(numbered(0), true), (numbered(1), true)], 0b1010);
        assert_eq!(beats.len(), 33);
        assert_eq!((beats[16].valid, beats[16].start), (0b1010, 0b1000));
        assert_eq!(beats[16].data, [0, 32, 0, 1 << 8]);
        // Four lanes: 33 = 8 x 4 + 1, a partial beat of one XFR on lane 0.
        let beats = stripe(&[(numbered(0), false), (numbered(1), false)], 0b1111);
        assert_eq!(beats.len(), 18);
        assert_eq!((beats[8].valid, beats[17].valid), (0b0001, 0b0001));
        assert_eq!(beats[9].start, 0b0001);
        // One lane: never partial.
        let beats = stripe(&[(numbered(0), false), (numbered(1), false)], 0b0100);
        assert_eq!(beats.len(), 66);
        assert!(beats.iter().all(|b| b.valid == 0b0100));
    }
}
