"""arraypart: on-chip array partitioning for FPGA high-level synthesis."""
