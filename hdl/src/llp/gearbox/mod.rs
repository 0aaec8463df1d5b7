//! Lane gearboxes: the link's XFRs (32 bits) on lanes narrower than an XFR.
//!
//! The endpoint works in XFRs ([`super::lane_channel::LaneChannelOut`]); the wire
//! ([`super::lane_channel::WireLanesOut`]) has lanes of `LD / 4` bits. At 32-bit lanes both
//! gearboxes are wires (and `slot` is always high). At 16-bit lanes an XFR takes two
//! consecutive transfers on its lane, low half first:
//!
//! | transfer | `valid` | `start` (sideband) | `data` |
//! |---|---|---|---|
//! | first | 1 | 1: "an XFR begins" | XFR bits 15..0 |
//! | second | 1 | the XFR's own `start` (it begins an LTP) | XFR bits 31..16 |
//!
//! Training words carry `start` low on 16-bit lanes, so while training every word's halves
//! carry (1, 0) and a receiver that comes up in the middle of a word frames on the next one
//! (were they (1, 1), it could pair the halves the wrong way round for ever). Once running,
//! only an LTP's first XFR has (1, 1), and a framed lane pairs it right.
//!
//! So the sideband does what a 64b/66b sync header does: it frames words on the lane (the
//! receiver pairs a transfer with `start` high and the next one) and it still marks an LTP's
//! first XFR. A receiver that lost a transfer (`valid` low in a second half) drops the half
//! it held and waits for the next first half: a lost or extra transfer costs the XFRs it
//! touched (the deframer sees a beat with a lane missing, the LTP fails its check and is
//! replayed), never the framing of what follows. A lane stuck at a constant with `start` low
//! carries no XFR at all (the trainer names it: its words are missing).
//!
//! Rate: a beat (one XFR per active lane) every second cycle, which at 4 lanes is the
//! serializer's one flit (two XFRs) per cycle: the wire's whole capacity. The transmit
//! gearbox says when it takes a beat (`slot`); the trainer advances its training words only
//! then, and the striper holds a formed beat until then.
//!
//! Software model: [`split_xfr`], [`RxGearboxModel`].
pub mod rx;
pub mod tx;

/// Lane width at which the gearboxes split XFRs (the narrow width of
/// [`super::lane_channel::LANE_WIDTHS`]).
pub const HALF_BITS: usize = 16;

/// The two transfers `(valid, start, data)` a 16-bit lane carries for one XFR.
pub fn split_xfr(start: bool, xfr: u32) -> [(bool, bool, u16); 2] {
    [(true, true, xfr as u16), (true, start, (xfr >> 16) as u16)]
}

/// The receive framing of one 16-bit lane: transfers in, XFRs `(start, data)` out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxGearboxModel {
    lower: Option<u16>,
}

impl RxGearboxModel {
    /// One cycle of the lane: the XFR completed by this transfer, if any.
    pub fn step(&mut self, valid: bool, start: bool, data: u16) -> Option<(bool, u32)> {
        match self.lower.take() {
            Some(low) => valid.then_some((start, (data as u32) << 16 | low as u32)),
            None => {
                if valid && start {
                    self.lower = Some(data);
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_then_pair_is_the_identity_and_a_lost_half_costs_one_xfr() {
        let mut rx = RxGearboxModel::default();
        let xfrs = [
            (true, 0xdead_beefu32),
            (false, 0x0123_4567),
            (false, 0x89ab_cdef),
        ];
        let mut out = vec![];
        for (k, &(start, x)) in xfrs.iter().enumerate() {
            for (half, &(v, s, d)) in split_xfr(start, x).iter().enumerate() {
                // The second half of XFR 1 is lost on the wire.
                let v = v && !(k == 1 && half == 1);
                out.extend(rx.step(v, s, d));
            }
        }
        assert_eq!(out, vec![(true, 0xdead_beef), (false, 0x89ab_cdef)]);
    }
}
