//! Link-transfer (LT) control flits: the link layer's own commands, carried as control flits
//! with code [`ControlCode::LinkTransfer`]`(c)` and a 32-bit payload in the `orig` field
//! ([`CTRL_ORIG`]). Defined once here; the transmitter's generators, the receiver's decoder,
//! the models and `docs/llp-design.md` use these codes.
//!
//! A *null LTP* is an LTP whose flit 0 is an LT flit ([`LtCode::RetryMrkr`] or
//! [`LtCode::Null`]). It is neither stored in the replay buffer nor numbered: its CRC is sent
//! without a sequence number XORed in, and its LT flits act as soon as it passes its CRC,
//! even while the receiver waits for a retry marker. Normal LTPs never carry an LT flit in
//! flit 0; the only LT flits they carry are [`LtCode::RndTripMrkr`] and [`LtCode::RndTripEcho`].
use crate::formats::flit::{CODE, CTRL_ORIG};
use crate::formats::ControlCode;
use rust_hdl::prelude::{Bits, Constant};

/// Bits of the command in the control code: the low five ([`ControlCode::LinkTransfer`] is
/// `0x20 | command`).
pub const LT_CODE_BITS: usize = 5;

/// The link-transfer commands (the low five bits of the control code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtCode {
    /// "Replay from this sequence number": the receiver's next expected LTP. Null LTPs only.
    RetryReq = 0,
    /// "The LTPs after this null LTP are a replay starting at this sequence number."
    RetryMrkr = 1,
    /// "Echo when you get this": in a normal LTP, or in a null LTP as a poll after a timeout.
    RndTripMrkr = 2,
    /// "I have delivered every LTP below this sequence number" (cumulative): frees the replay.
    RndTripEcho = 3,
    /// "Send to me on these physical lanes" (bits 3..0). Null LTPs only, with a RetryReq.
    LaneMask = 4,
    /// Flit 0 of a null LTP that is not a retry marker.
    Null = 5,
}

impl LtCode {
    /// Every code, in numeric order.
    pub const ALL: [LtCode; 6] = [
        LtCode::RetryReq,
        LtCode::RetryMrkr,
        LtCode::RndTripMrkr,
        LtCode::RndTripEcho,
        LtCode::LaneMask,
        LtCode::Null,
    ];

    /// The command as hardware compares it: the low [`LT_CODE_BITS`] bits of the control code.
    pub fn constant(self) -> Constant<Bits<LT_CODE_BITS>> {
        Constant::new((self as u64).into())
    }

    /// The command of a control code's value, `None` for another kind of control code or a
    /// reserved command.
    pub fn from_control_code(code: u8) -> Option<LtCode> {
        match ControlCode::from_code(code)? {
            ControlCode::LinkTransfer(c) => LtCode::from_bits(c),
            _ => None,
        }
    }

    /// The code for a value of the low five bits, `None` if reserved.
    pub fn from_bits(c: u8) -> Option<LtCode> {
        Self::ALL.iter().copied().find(|x| *x as u8 == c)
    }

    /// The 65-bit flit carrying this command with `payload` (`orig` field).
    pub fn flit(self, payload: u32) -> u128 {
        let w = CODE.set(0, ControlCode::LinkTransfer(self as u8).code() as u128);
        CTRL_ORIG.set(w, payload as u128)
    }
}

/// The command and payload of an LT flit, `None` for any other flit or a reserved code.
pub fn decode_lt(flit: u128) -> Option<(LtCode, u32)> {
    if flit >> 62 != 0 {
        return None;
    }
    match ControlCode::from_code(CODE.get(flit) as u8)? {
        ControlCode::LinkTransfer(c) => Some((LtCode::from_bits(c)?, CTRL_ORIG.get(flit) as u32)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Flit;

    #[test]
    fn lt_flits_round_trip_and_are_valid_control_flits() {
        for c in LtCode::ALL {
            let f = c.flit(0xdead_beef);
            assert_eq!(decode_lt(f), Some((c, 0xdead_beef)));
            assert!(Flit::unpack(f).is_ok(), "{c:?}");
        }
        assert_eq!(decode_lt(0), None, "Idle is not an LT flit");
        assert_eq!(decode_lt(1 << 64), None, "a body flit is not an LT flit");
    }
}
