//! Two NICs back to back on Verilator (`testbench::nic_pair`): random NAP, PUT and GET
//! operations across every function and QP of both NICs, wrong keys among them, every event
//! and every destination byte checked; first two DMA cores with their channels joined, then
//! two whole chips through their LLP link ports and the lane-channel model with bit errors.
//! Each model is built once; the longer runs and the figures are `bench -- nic-pair`.
use testbench::models::lane_channel::Faults;
use testbench::nic_pair::{model, run, top_model, Variant};

#[test]
fn two_nic_cores_move_every_byte_and_event() {
    let model = model().expect("the nic_core model builds");
    let r = run(&model, Variant::Core, 7, 400, 65536);
    println!("nic_pair core seed 7: {r:?}");
    assert_eq!(
        r.completed.iter().sum::<u64>(),
        400,
        "every operation completed: {r:?}"
    );
    assert!(r.completed.iter().all(|&c| c > 10), "every kind ran: {r:?}");
    assert!(r.ring_full > 0, "rings filled and held events back: {r:?}");
    assert!(r.isolation_attempts > 100, "isolation tried: {r:?}");
}

#[test]
fn two_nic_chips_over_noisy_lanes_move_every_byte_and_event() {
    let model = top_model().expect("the nic_top model builds");
    let faults = Faults {
        ber: 1e-5,
        ..Default::default()
    };
    let r = run(&model, Variant::Top(faults), 8, 300, 16384);
    println!("nic_pair top seed 8: {r:?}");
    assert_eq!(
        r.completed.iter().sum::<u64>(),
        300,
        "every operation completed: {r:?}"
    );
    assert!(r.flipped_bits > 10, "the lanes flipped bits: {r:?}");
}
