// Test support for the tabs' tests: attributes with numbered labels.
#pragma once

#include <cstddef>
#include <string>

#include "core/table/table.h"

namespace dpx::test {

// An attribute `name` of n bins labelled name0, name1, ….
inline Attribute numbered(const std::string& name, std::size_t n) {
    Attribute a;
    a.name = name;
    for (std::size_t i = 0; i < n; ++i) {
        a.labels.push_back(name + std::to_string(i));
    }
    return a;
}

}  // namespace dpx::test
