# Per-target build settings shared by every DP Explorer target: call dpx_target_defaults(<target>).
# Nothing here touches global include paths or definitions.

function(dpx_target_defaults target)
    target_compile_features(${target} PUBLIC cxx_std_20)
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                                 -Wno-sign-conversion)
        if(DPX_WERROR)
            target_compile_options(${target} PRIVATE -Werror)
        endif()
    endif()
    if(DPX_SANITIZE)
        string(REPLACE ";" "," _san "${DPX_SANITIZE}")
        target_compile_options(${target} PRIVATE -fsanitize=${_san} -fno-omit-frame-pointer
                                                 -fno-sanitize-recover=all)
        target_link_options(${target} PRIVATE -fsanitize=${_san})
    endif()
    if(DPX_CLANG_TIDY)
        find_program(_tidy NAMES clang-tidy clang-tidy-14 REQUIRED)
        set_target_properties(${target} PROPERTIES CXX_CLANG_TIDY "${_tidy}")
    endif()
endfunction()

# Strict Qt settings for targets that use Qt (ui, app, Qt-side tests).
function(dpx_qt_strict target)
    target_compile_definitions(${target} PRIVATE QT_NO_CAST_FROM_ASCII QT_NO_KEYWORDS
                                                 QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
                                                 QT_NO_URL_CAST_FROM_STRING)
endfunction()
