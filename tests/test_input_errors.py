"""Input whose C++ output could not compile is a located error at input (exit 2)."""

import pytest

from arraypart import cli

LOOP = """  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = %s;
  }
"""

CASES = {
    "keyword_parameter": ("void k(int class[64], int out[64]) {\n" + LOOP % "class[i]" + "}\n",
                          "1:12", "'class' is a C++ keyword"),
    "keyword_local": ("void k(int in[64], int out[64]) {\n  int new = 3;\n"
                      + LOOP % "in[i] + new" + "}\n", "2:7", "'new' is a C++ keyword"),
    "top_named_main": ("void main(int in[64], int out[64]) {\n" + LOOP % "in[i]" + "}\n",
                       "1:6", "'main' names the testbench's own function"),
    "include_through_macro": ("#define HDR <stdint.h>\n#include HDR\n"
                              "void k(int in[64], int out[64]) {\n" + LOOP % "in[i]" + "}\n",
                              "2:1", "#include names its file through a macro"),
    "self_referencing_define": ("#define N (N + 1)\nvoid k(int in[64], int out[64]) {\n"
                                + LOOP % "in[i] + N" + "}\n", "5:", "macro N refers to itself"),
    "mutually_referencing_defines": ("#define A (B + 1)\n#define B (A * 2)\n"
                                     "void k(int in[64], int out[64]) {\n"
                                     + LOOP % "in[i] + A" + "}\n", "6:", "refers to itself"),
    "array_too_large": ("void k(int in[64], int out[64]) {\n  int buf[9223372036854775807];\n"
                        + LOOP % "in[i]" + "}\n", "2:7", "bytes, more than"),
    "elements_overflow": ("void k(int in[64], int out[64]) {\n"
                          "  int buf[4294967296][4294967296];\n" + LOOP % "in[i]" + "}\n",
                          "2:7", "elements, more than"),
    "include_in_initializer": ('const int table[4] = {\n#include "table.inc"\n};\n'
                               "void k(int in[64], int out[64]) {\n"
                               + LOOP % "in[i] + table[i % 4]" + "}\n",
                               "2:1", "#include inside a declaration"),
    "include_after_open_declaration": ('const int table[4] =\n#include "table.inc"\n;\n'
                                       "void k(int in[64], int out[64]) {\n"
                                       + LOOP % "in[i]" + "}\n", "2:1", "#include inside"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_located_error_at_input(name, tmp_path, capsys):
    text, where, message = CASES[name]
    path = tmp_path / "k.c"
    path.write_text(text)
    code = cli.main(["compile", str(path), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"{path}:{where}") and message in err, err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_includes_at_file_scope_and_unused_self_reference_are_fine(tmp_path, capsys):
    path = tmp_path / "k.c"
    path.write_text('#include <stdint.h>\n#define UNUSED UNUSED\nconst int t[2] = {1, 2};\n'
                    '#include "ap_int.h"\nvoid k(int in[64], int out[64]) {\n'
                    + LOOP % "in[i] + t[i % 2]" + "}\n")
    assert cli.main(["analyze", str(path)]) == 0
