# CSV reader tests: dpx_add_test(... LIBS dpx_io LABELS data)
# The corpus (tests/io/sources/csv: malformed files with their manifest expected.tsv, good files with
# quoting edge cases) is found through DPX_CSV_TEST_DIR, the source directory.
dpx_add_test(tst_csv_reader SOURCES tst_csv_reader.cpp LIBS dpx_io LABELS data)
target_compile_definitions(tst_csv_reader PRIVATE
    DPX_CSV_TEST_DIR="${CMAKE_CURRENT_SOURCE_DIR}/csv"
    DPX_FUZZ_TEST_DIR="${PROJECT_SOURCE_DIR}/tests/fuzz")
# Counts files (issue #19): .npy and counts CSVs (long, vector, matrix) through readCountsFile.
dpx_add_test(tst_counts_file SOURCES tst_counts_file.cpp LIBS dpx_io LABELS data)
# Public proxies for choosing ε (issue #22): shape files and previous releases.
dpx_add_test(tst_proxy_source SOURCES tst_proxy_source.cpp LIBS dpx_io LABELS data)
