//! Transaction-level model of `hdl::llp::LtpDeframer`: lane beats (and the lane mask) cycle by
//! cycle in, LTP attempts out, each with its end record and, when all 33 XFRs arrived, its
//! flits; plus the per-beat `lane_missing` and `stray` events. Not cycle exact for the flits
//! and ends (the hardware delivers them some cycles later); the events are per input cycle.
use hdl::crc::CRC8;
use hdl::llp::ltp::{
    active_lanes, ltp_crc, xfrs_to_ltp, Beat, LTP_FLITS, LTP_XFRS, SIDEBAND_SHIFT, STATE_SHIFT,
};

/// What an attempt delivered when its 33 XFRs arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Complete {
    /// The 16 flits.
    pub flits: [u128; LTP_FLITS],
    /// Arrived whole (the model's completed attempts always are).
    pub intact: bool,
    /// CRC-14 of the flits and sideband XOR the trailer's check field XOR the state at
    /// `STATE_SHIFT`.
    pub crc_diff: u16,
    /// The trailer's credit sideband bits.
    pub sideband: u8,
    /// Logical lane of XFR 0.
    pub state: u8,
    /// Group CRCs ([`group_crcs`]).
    pub gcrc: u32,
}

/// One LTP attempt: `None` when it ended early (bad), else what it delivered.
pub type Attempt = Option<Complete>;

/// The per-group CRC-8s of an LTP's 33 XFRs at `lanes` lanes: group `m` (XFRs `j` with
/// `j mod lanes == m`, in order, one 32-bit step each) in bits `8m .. 8m+7`.
pub fn group_crcs(xfrs: &[u32; LTP_XFRS], lanes: usize) -> u32 {
    (0..lanes).fold(0u32, |acc, m| {
        let mut d = CRC8.digest();
        for j in (m..LTP_XFRS).step_by(lanes) {
            d.update_word(xfrs[j] as u128, 32);
        }
        acc | (d.finish() as u32) << (8 * m)
    })
}

/// Events of one input cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events {
    /// Physical lanes named missing.
    pub missing: u8,
    /// XFRs arrived that belong to no attempt.
    pub stray: bool,
}

/// The deframer's writer, beat by beat.
#[derive(Clone, Debug)]
pub struct DeframerModel {
    mask: u8,
    /// The attempt in progress: its XFRs so far and its XFR 0's logical lane.
    cur: Option<(Vec<u32>, u8)>,
    /// Every attempt, in the order they began (and ended).
    pub attempts: Vec<Attempt>,
    /// Events per input cycle.
    pub events: Vec<Events>,
}

impl DeframerModel {
    /// After reset, with lane mask `mask`.
    pub fn new(mask: u8) -> Self {
        Self {
            mask,
            cur: None,
            attempts: vec![],
            events: vec![],
        }
    }

    /// Reset (with lane mask `mask` on the port): the attempt in progress is dropped without
    /// an end, and the deframer hunts for a start flag. The records of earlier attempts and
    /// events are kept: the bench decides which of them the block reported before the reset.
    pub fn reset(&mut self, mask: u8) {
        self.mask = mask;
        self.cur = None;
    }

    fn complete(&mut self, xfrs: &[u32], state: u8, lanes: usize) {
        let x: [u32; LTP_XFRS] = xfrs.try_into().unwrap();
        let (flits, trailer) = xfrs_to_ltp(&x);
        let sideband = (trailer >> SIDEBAND_SHIFT) as u8;
        self.attempts.push(Some(Complete {
            flits,
            intact: true,
            crc_diff: (ltp_crc(&flits, sideband) ^ trailer ^ (state as u16) << STATE_SHIFT)
                & 0x3fff,
            sideband,
            state,
            gcrc: group_crcs(&x, lanes),
        }));
    }

    /// One input cycle: the mask port and the beat on the lanes.
    pub fn cycle(&mut self, mask: u8, beat: &Beat) {
        if mask != self.mask {
            self.mask = mask;
            if self.cur.take().is_some() {
                self.attempts.push(None);
            }
        }
        let lanes = active_lanes(self.mask);
        let l = lanes.len();
        let v: Vec<bool> = lanes.iter().map(|&p| beat.valid >> p & 1 == 1).collect();
        let s: Vec<bool> = lanes
            .iter()
            .map(|&p| beat.valid >> p & beat.start >> p & 1 == 1)
            .collect();
        let x: Vec<u32> = lanes.iter().map(|&p| beat.data[p]).collect();
        let mut ev = Events::default();
        if !v.iter().any(|&b| b) {
            self.events.push(ev);
            return;
        }
        let mut miss = vec![false; l];
        // Holes below the highest valid lane.
        let hi = (0..l).rev().find(|&n| v[n]).unwrap();
        for n in 0..hi {
            miss[n] |= !v[n];
        }
        // The attempt in progress takes min(L, XFRs left) lanes, up to an unexpected start.
        let mut b = 0;
        if let Some((mut xs, state)) = self.cur.take() {
            let need = l.min(LTP_XFRS - xs.len());
            let f0 = (0..need).find(|&n| s[n]);
            b = f0.unwrap_or(need);
            let mut bad = f0.is_some();
            for n in 0..b {
                miss[n] |= !v[n];
                bad |= !v[n];
                xs.push(x[n]);
            }
            if bad {
                self.attempts.push(None);
            } else if xs.len() == LTP_XFRS {
                self.complete(&xs, state, l);
            } else {
                self.cur = Some((xs, state));
            }
        }
        // After it: stray XFRs up to the first start; each start begins an attempt.
        let starts: Vec<usize> = (b..l).filter(|&n| s[n]).collect();
        let first = starts.first().copied().unwrap_or(l);
        ev.stray = (b..first).any(|n| v[n]);
        if let Some(&f) = starts.last() {
            for _ in 1..starts.len() {
                self.attempts.push(None);
            }
            for n in f..l {
                miss[n] |= !v[n];
            }
            if (f..l).all(|n| v[n]) {
                self.cur = Some((x[f..l].to_vec(), f as u8));
            } else {
                self.attempts.push(None);
            }
        }
        for (n, &p) in lanes.iter().enumerate() {
            if miss[n] {
                ev.missing |= 1 << p;
            }
        }
        self.events.push(ev);
    }
}
