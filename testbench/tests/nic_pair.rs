//! Two NIC DMA cores back to back on Verilator (`testbench::nic_pair`): random NAP, PUT and GET
//! operations across every function and QP of both NICs, wrong keys among them, every event
//! and every destination byte checked. The model is built once; the longer runs and the
//! figures are `bench -- nic-pair`.
use testbench::nic_pair::{model, run};

#[test]
fn two_nics_move_every_byte_and_event() {
    let model = model().expect("the nic_core model builds");
    let r = run(&model, 7, 400, 65536);
    println!("nic_pair seed 7: {r:?}");
    assert_eq!(
        r.completed.iter().sum::<u64>(),
        400,
        "every operation completed: {r:?}"
    );
    assert!(r.completed.iter().all(|&c| c > 30), "every kind ran: {r:?}");
}
