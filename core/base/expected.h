// Error values for the core: every fallible operation returns Expected<T> (a value or an Error with
// a human-readable message). Nothing in the core throws for bad input and nothing is silently
// clamped.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace dpx {

struct Error {
    std::string message;
};

template <class T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Expected(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool hasValue() const { return v_.index() == 0; }
    explicit operator bool() const { return hasValue(); }

    const T& value() const& { return check(), std::get<0>(v_); }
    T& value() & { return check(), std::get<0>(v_); }
    T&& value() && { return check(), std::move(std::get<0>(v_)); }
    const T& operator*() const& { return value(); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }

    // Precondition: !hasValue().
    const Error& error() const& {
        if (hasValue()) {
            throw std::logic_error("dpx::Expected::error() called on a value");
        }
        return std::get<1>(v_);
    }

private:
    void check() const {
        if (!hasValue()) {
            throw std::logic_error("dpx::Expected::value() called on an error: " +
                                   std::get<1>(v_).message);
        }
    }
    std::variant<T, Error> v_;
};

// Success-or-error for operations without a result.
using Status = Expected<std::monostate>;
inline Status okStatus() {
    return std::monostate{};
}

}  // namespace dpx
