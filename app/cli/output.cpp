#include "app/cli/output.h"

#include <QJsonDocument>
#include <ostream>

namespace dpx::cli {

int fail(std::ostream& err, const std::string& message, int code) {
    err << "dpx: error: " << message << '\n';
    return code;
}

int fail(std::ostream& err, const Error& e, int code) {
    return fail(err, e.message, code);
}

void warn(std::ostream& err, const std::string& message) {
    err << "dpx: warning: " << message << '\n';
}

void printJson(std::ostream& out, const QJsonObject& o) {
    out << QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

void printJson(std::ostream& out, const QJsonArray& a) {
    out << QJsonDocument(a).toJson(QJsonDocument::Indented).toStdString();
}

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QJsonArray toArray(const std::vector<double>& v) {
    QJsonArray a;
    for (double x : v) {
        a.append(x);
    }
    return a;
}

QJsonArray toArray(const std::vector<std::string>& v) {
    QJsonArray a;
    for (const auto& x : v) {
        a.append(qs(x));
    }
    return a;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = s.find(sep, start);
        parts.push_back(
            s.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) {
            return parts;
        }
        start = end + 1;
    }
}

}  // namespace dpx::cli
