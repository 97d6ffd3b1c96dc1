# SQLite and PostgreSQL sources: list sources relative to core/data.
list(APPEND DPX_DATA_SQL_SOURCES sql_source.cpp sql_source.h)
