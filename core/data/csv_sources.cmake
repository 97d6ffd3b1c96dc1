# CSV/TSV reader and streaming histograms: list sources relative to core/data.
list(APPEND DPX_DATA_CSV_SOURCES csv_reader.cpp csv_reader.h)
