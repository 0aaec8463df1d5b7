// Measurement wrapper (hpcnet, not third-party code): alexforencich `arbiter` (verilog-axis
// names it verilog_axis_arbiter) with PORTS 8, round robin, ARB_BLOCK 0 and the lowest index
// first (ARB_LSB_HIGH_PRIORITY 1, as hpcnet's RrArbiter). Its grant is registered: a request
// is granted on the edge after it is raised. Needs arbiter.v and priority_encoder.v alongside.
`default_nettype none
module ref_arbiter_rr8 (
    input  wire       clk,
    input  wire       rst,
    input  wire [7:0] request,
    input  wire [7:0] acknowledge,
    output wire [7:0] grant,
    output wire       grant_valid,
    output wire [2:0] grant_encoded
);
    verilog_axis_arbiter #(
        .PORTS(8),
        .ARB_TYPE_ROUND_ROBIN(1),
        .ARB_BLOCK(0),
        .ARB_BLOCK_ACK(0),
        .ARB_LSB_HIGH_PRIORITY(1)
    ) arb (
        .clk(clk),
        .rst(rst),
        .request(request),
        .acknowledge(acknowledge),
        .grant(grant),
        .grant_valid(grant_valid),
        .grant_encoded(grant_encoded)
    );
endmodule
