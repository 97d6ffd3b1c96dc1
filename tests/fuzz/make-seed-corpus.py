#!/usr/bin/env python3
"""Regenerates the seed corpus tests/fuzz/corpus/csv/ of the CSV reader fuzz target.

Each seed is 4 config bytes (see decodeCase in csv_fuzz_check.h) followed by a CSV file: the good
and malformed test files of tests/io/sources/csv (except the 58 KB too_many_fields.csv) and a few
hand-made edge cases, each under two or three option sets. Run from anywhere; it rewrites the
directory. Total size stays well under 100 KB.
"""
import pathlib

root = pathlib.Path(__file__).resolve().parents[2]
out = root / "tests/fuzz/corpus/csv"

# b0: delimiter/header/policy/threads/second; b1: block/sample; b2: binning/column/...; b3: limits...
configs = {
    "stop-1t-b1": bytes([0x00, 0x00, 0x00, 0x00]),     # detect, header, stop, 1 thread, block 1
    "skip-3t-b7": bytes([0x50, 0x06, 0x02, 0xC0]),     # skip, 3 threads, block 7, equal-width 8
    "skip-2t-b3-cap": bytes([0xB0, 0x42, 0x63, 0x14]), # skip, 2 threads, second request, cap 2
    "noheader-int": bytes([0x38, 0x84, 0x23, 0x00]),   # comma, no header, skip, 2 threads, integers
    "limits-cats": bytes([0x74, 0x0F, 0x24, 0x03]),    # ',' skip 3 threads, fixed cats + other, limits
    "dates": bytes([0x50, 0x05, 0x86, 0x0C]),          # date override, equal-width [0, 100]
}

edge_cases = {
    "bom_crlf.csv": b"\xef\xbb\xbfa,b\r\n1,x\r\n2,y\r\n",
    "quoted_newlines.csv": b'a,b\n"1\n2",3\n"x""y",4\n"",5\n',
    "mixed_line_ends.csv": b"a;b\r1;2\n3;4\r\n5;6",
    "pipes.csv": b"id|v\n1|2.5\n1|3\n2|-0\n2|1e3\n3|\n",
    "tabs.tsv": b"a\tb\tc\n 1 \t\t3\n4\t5\t\n",
    "numbers.csv": b"n\n+1\n1e308\n1e309\nnan\ninf\n-0\n0.1\n12345678901234567890\n.5\n1.\n",
    "dates.csv": b"d\n2024-02-29\n2023-02-29\n0001-01-01\n9999-12-31\n1970-01-01\n",
    "utf8.csv": b"s,n\n\xc3\xa9,1\n\xe2\x82\xac,2\n\xf0\x9f\x98\x80,3\n\xed\xa0\x80,4\n",
    "ragged.csv": b"a,b,c\n1,2\n1,2,3,4\n\n1,2,3\n",
    "blank_lines.csv": b"\n\na,b\n\n1,2\n\n\n3,4\n\n",
    "quote_at_end.csv": b'a,b\n1,"2\n',
    "no_header_one_col.csv": b"5\n6\n7\n5\n",
    "empty_fields.csv": b"a,b\n,\n,1\n1,\n\"\",\"\"\n",
    "long_record.csv": b"a,b\n" + b"1," + b"9" * 80 + b"\n2,3\n",
    "ids.csv": b"id,v\nx,1\nx,2\nx,3\ny,4\n,5\nx,6\n",
}

out.mkdir(parents=True, exist_ok=True)
for old in out.iterdir():
    old.unlink()

sources = {}
for sub in ("good", "malformed"):
    for f in sorted((root / "tests/io/sources/csv" / sub).iterdir()):
        if f.name in ("expected.tsv", "too_many_fields.csv"):
            continue
        sources[f"{sub}-{f.name}"] = f.read_bytes()
for name, text in edge_cases.items():
    sources[f"edge-{name}"] = text

names = list(configs)
for i, (name, text) in enumerate(sorted(sources.items())):
    # Every file under the first option set and two others, chosen in turn.
    for cfg in {names[0], names[1 + i % (len(names) - 1)], names[1 + (i + 2) % (len(names) - 1)]}:
        (out / f"{name}.{cfg}").write_bytes(configs[cfg] + text)

total = sum(f.stat().st_size for f in out.iterdir())
print(f"{len(list(out.iterdir()))} seeds, {total} bytes in {out}")
