//! Response builder: the one place where the agent turns a request beat into its response
//! beat, by the codec's rule ([`MgmtPacket::response_to`](crate::formats::mgmt::MgmtPacket::response_to)),
//! so every function unit answers alike.
//!
//! From the request beat (as the unpacker offers it, the arrival port already appended to the
//! backward route) the response takes:
//! - `dst` = the request's `src`, `src` = `chip_id`;
//! - `w0`: `dest_type` NIC (the codec's choice: responses go to the management server's NIC),
//!   `src_vp`, `dest_vp` and `transaction_id` copied unchanged (both VP fields name the
//!   server's virtual ports, so the codec does not swap them), `nmp_type` and `error` from the
//!   inputs, reserved bits zero;
//! - forward route (`w1`, `w2`) = the request's backward route (`w3`, `w4`) with `current =
//!   hop_num`; backward route empty (`w3 = w4 = 0`); the request's reserved route bits are not
//!   copied;
//! - `w5`, `w6`, `w7` = the `access`, `data0`, `data1` inputs (the unit's payload).
//!
//! Purely combinational (no clock): a unit holds its request steady on its sink while the
//! response is offered, so the response is steady too. Ports are plain signals: this is a
//! child every unit instantiates around its own stream, not a stage of the stream.
use crate::formats::field::Field;
use crate::formats::mgmt::{
    self, beat_word_lsb, DestType, BEAT_DST_LSB, BEAT_SRC_LSB, MGMT_BEAT_BITS,
};
use rust_hdl::prelude::*;

/// The response of a request beat; see the module documentation.
#[derive(LogicBlock)]
pub struct ResponseBuilder {
    /// The request beat.
    pub request: Signal<In, Bits<MGMT_BEAT_BITS>>,
    /// This chip's ID (the response's `src`).
    pub chip_id: Signal<In, Bits<16>>,
    /// The response's `nmp_type` code.
    pub nmp_type: Signal<In, Bits<6>>,
    /// The response's `error` code (zero unless an error response).
    pub error: Signal<In, Bits<8>>,
    /// The response's `w5` (count and addresses).
    pub access: Signal<In, Bits<64>>,
    /// The response's `w6`.
    pub data0: Signal<In, Bits<64>>,
    /// The response's `w7`.
    pub data1: Signal<In, Bits<64>>,
    /// The response beat.
    pub response: Signal<Out, Bits<MGMT_BEAT_BITS>>,
    info: Signal<Local, Bits<64>>,
    backward: Signal<Local, Bits<64>>,
    backward_high: Signal<Local, Bits<64>>,
    hop_num: Signal<Local, Bits<5>>,
    info_out: Signal<Local, Bits<64>>,
    forward_out: Signal<Local, Bits<64>>,
    forward_high_out: Signal<Local, Bits<64>>,
    /// `w0` bits copied from the request (VPs, transaction ID).
    info_keep: Constant<Bits<64>>,
    /// `w0`'s constant bits (`dest_type`).
    info_constant: Constant<Bits<64>>,
    /// Route word bits copied: `hop_num` and hops 0..9 / hops 10..19.
    route_keep: Constant<Bits<64>>,
    route_high_keep: Constant<Bits<64>>,
    info_lsb: Constant<Bits<10>>,
    forward_lsb: Constant<Bits<10>>,
    forward_high_lsb: Constant<Bits<10>>,
    backward_lsb: Constant<Bits<10>>,
    backward_high_lsb: Constant<Bits<10>>,
    access_lsb: Constant<Bits<10>>,
    data0_lsb: Constant<Bits<10>>,
    data1_lsb: Constant<Bits<10>>,
    src_lsb: Constant<Bits<10>>,
    dst_lsb: Constant<Bits<10>>,
    hop_num_lsb: Constant<Bits<7>>,
    current_shift: Constant<Bits<7>>,
    nmp_type_shift: Constant<Bits<7>>,
    error_shift: Constant<Bits<7>>,
}

/// The bits of field `f` in its word.
pub const fn field_mask(f: Field) -> u64 {
    (f.max() as u64) << f.lsb
}

pub(crate) fn constant<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::from(v))
}

impl Default for ResponseBuilder {
    fn default() -> Self {
        let hops_mask = |range: std::ops::Range<usize>| {
            range.fold(0u64, |m, i| m | field_mask(mgmt::hop_field(i)))
        };
        Self {
            request: Default::default(),
            chip_id: Default::default(),
            nmp_type: Default::default(),
            error: Default::default(),
            access: Default::default(),
            data0: Default::default(),
            data1: Default::default(),
            response: Default::default(),
            info: Default::default(),
            backward: Default::default(),
            backward_high: Default::default(),
            hop_num: Default::default(),
            info_out: Default::default(),
            forward_out: Default::default(),
            forward_high_out: Default::default(),
            info_keep: constant(
                field_mask(mgmt::SRC_VP)
                    | field_mask(mgmt::DEST_VP)
                    | field_mask(mgmt::TRANSACTION_ID),
            ),
            info_constant: constant((DestType::Nic.code() as u64) << mgmt::DEST_TYPE.lsb),
            route_keep: constant(field_mask(mgmt::HOP_NUM) | hops_mask(0..mgmt::HOPS_PER_WORD)),
            route_high_keep: constant(hops_mask(mgmt::HOPS_PER_WORD..mgmt::ROUTE_HOPS)),
            info_lsb: constant(beat_word_lsb(mgmt::W_INFO) as u64),
            forward_lsb: constant(beat_word_lsb(mgmt::W_FORWARD) as u64),
            forward_high_lsb: constant(beat_word_lsb(mgmt::W_FORWARD_HIGH) as u64),
            backward_lsb: constant(beat_word_lsb(mgmt::W_BACKWARD) as u64),
            backward_high_lsb: constant(beat_word_lsb(mgmt::W_BACKWARD_HIGH) as u64),
            access_lsb: constant(beat_word_lsb(mgmt::W_ACCESS) as u64),
            data0_lsb: constant(beat_word_lsb(mgmt::W_DATA0) as u64),
            data1_lsb: constant(beat_word_lsb(mgmt::W_DATA1) as u64),
            src_lsb: constant(BEAT_SRC_LSB as u64),
            dst_lsb: constant(BEAT_DST_LSB as u64),
            hop_num_lsb: constant(mgmt::HOP_NUM.lsb as u64),
            current_shift: constant(mgmt::CURRENT.lsb as u64),
            nmp_type_shift: constant(mgmt::NMP_TYPE.lsb as u64),
            error_shift: constant(mgmt::ERROR.lsb as u64),
        }
    }
}

impl Logic for ResponseBuilder {
    #[hdl_gen]
    fn update(&mut self) {
        self.info.next = self
            .request
            .val()
            .get_bits::<64>(self.info_lsb.val().index());
        self.backward.next = self
            .request
            .val()
            .get_bits::<64>(self.backward_lsb.val().index());
        self.backward_high.next = self
            .request
            .val()
            .get_bits::<64>(self.backward_high_lsb.val().index());
        self.hop_num.next = self
            .backward
            .val()
            .get_bits::<5>(self.hop_num_lsb.val().index());
        self.info_out.next = (self.info.val() & self.info_keep.val())
            | self.info_constant.val()
            | (bit_cast::<64, 6>(self.nmp_type.val()) << self.nmp_type_shift.val())
            | (bit_cast::<64, 8>(self.error.val()) << self.error_shift.val());
        self.forward_out.next = (self.backward.val() & self.route_keep.val())
            | (bit_cast::<64, 5>(self.hop_num.val()) << self.current_shift.val());
        self.forward_high_out.next = self.backward_high.val() & self.route_high_keep.val();
        self.response.next = (bit_cast::<MGMT_BEAT_BITS, 64>(self.info_out.val())
            << self.info_lsb.val())
            | (bit_cast::<MGMT_BEAT_BITS, 64>(self.forward_out.val()) << self.forward_lsb.val())
            | (bit_cast::<MGMT_BEAT_BITS, 64>(self.forward_high_out.val())
                << self.forward_high_lsb.val())
            | (bit_cast::<MGMT_BEAT_BITS, 64>(self.access.val()) << self.access_lsb.val())
            | (bit_cast::<MGMT_BEAT_BITS, 64>(self.data0.val()) << self.data0_lsb.val())
            | (bit_cast::<MGMT_BEAT_BITS, 64>(self.data1.val()) << self.data1_lsb.val())
            | (bit_cast::<MGMT_BEAT_BITS, 16>(self.chip_id.val()) << self.src_lsb.val())
            | (bit_cast::<MGMT_BEAT_BITS, 16>(
                self.request
                    .val()
                    .get_bits::<16>(self.src_lsb.val().index()),
            ) << self.dst_lsb.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_builder_is_synthesizable() {
        let mut uut = ResponseBuilder::default();
        uut.connect_all();
        yosys_validate("response_builder", &generate_verilog(&uut)).unwrap();
    }
}
