// Measurement wrapper (hpcnet, not third-party code): a CRC-32 engine around alexforencich
// verilog-ethernet `lfsr` configured as Ethernet's CRC-32 (LFSR_WIDTH 32, POLY 32'h04c11db7,
// GALOIS, no feed-forward, REVERSE 1, DATA_WIDTH 64, STYLE "AUTO"). `lfsr` is purely
// combinational; like axis_eth_fcs_64, the wrapper holds the state in a register (reset to all
// ones, advanced by 64 bits on each edge where `valid` is high) and outputs it inverted, so
// the measured path is state register -> XOR network -> state register. Needs lfsr.v alongside.
`default_nettype none
module ref_crc32_d64 (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] data,
    input  wire        valid,
    output wire [31:0] crc
);
    reg  [31:0] state = 32'hffffffff;
    wire [31:0] state_next;

    lfsr #(
        .LFSR_WIDTH(32),
        .LFSR_POLY(32'h04c11db7),
        .LFSR_CONFIG("GALOIS"),
        .LFSR_FEED_FORWARD(0),
        .REVERSE(1),
        .DATA_WIDTH(64),
        .STYLE("AUTO")
    ) crc_step (
        .data_in(data),
        .state_in(state),
        .data_out(),
        .state_out(state_next)
    );

    always @(posedge clk) begin
        if (rst) begin
            state <= 32'hffffffff;
        end else if (valid) begin
            state <= state_next;
        end
    end

    assign crc = ~state;
endmodule
