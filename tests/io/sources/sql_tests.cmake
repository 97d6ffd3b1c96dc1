# SQLite / PostgreSQL tests: dpx_add_test(... LIBS dpx_io LABELS data)
# tst_sql_source starts its own PostgreSQL server (Debian postgresql, temporary directory, loopback,
# stopped by the test) and skips the PostgreSQL cases with the reason when it cannot.
find_package(Qt6 REQUIRED COMPONENTS Sql)
dpx_add_test(tst_sql_source
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tst_sql_source.cpp
            ${CMAKE_CURRENT_SOURCE_DIR}/tst_sql_pg_server.h
    LIBS dpx_io Qt6::Sql
    LABELS data
    TIMEOUT 600)
# Joint tables (issue #19): CSV, SQLite, PostgreSQL and PostgreSQL through ODBC agree cell by cell
# with a brute-force count; the PostgreSQL / ODBC cases skip with the reason when not installed.
dpx_add_test(tst_joint_sources
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tst_joint_sources.cpp
            ${CMAKE_CURRENT_SOURCE_DIR}/tst_sql_pg_server.h
    LIBS dpx_io Qt6::Sql
    LABELS data
    TIMEOUT 600)
