"""arraypart's stand-ins for the Vitis HLS headers (package data: ``*.h``)."""
