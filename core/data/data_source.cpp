#include "core/data/data_source.h"

namespace dpx::data {

const char* valueTypeName(ValueType t) {
    switch (t) {
        case ValueType::Integer:
            return "integer";
        case ValueType::Float:
            return "float";
        case ValueType::Categorical:
            return "categorical";
        case ValueType::Date:
            return "date";
    }
    return "?";
}

}  // namespace dpx::data
