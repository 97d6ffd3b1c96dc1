// Running the built dpx from the CLI tests (the executable is DPX_EXECUTABLE, defined per test by
// tests/cli/CMakeLists.txt): exit code, standard output and error, and the output parsed as one
// JSON object; and the .npy files the tests feed it.
#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace dpxtest {

struct Run {
    int exitCode = -1;  // -2: crashed; -1: did not finish in time
    QByteArray out;
    QByteArray err;
    QJsonObject json;
    bool jsonOk = false;  // stdout is one JSON object
};

inline Run runDpx(const QStringList& args, int timeoutMs = 240000) {
    Run r;
    QProcess p;
    p.setProgram(QStringLiteral(DPX_EXECUTABLE));
    p.setArguments(args);
    p.start();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &pe);
    r.jsonOk = pe.error == QJsonParseError::NoError && doc.isObject();
    r.json = doc.object();
    return r;
}

// "ldp --epsilon 1" → {"ldp", "--epsilon", "1"}.
inline QStringList words(const QString& s) {
    return s.split(QLatin1Char(' '), Qt::SkipEmptyParts);
}
inline QStringList words(const char* s) {
    return words(QString::fromUtf8(s));
}

// For failure messages: the exit code, the start of stdout and all of stderr.
inline QByteArray describe(const Run& r) {
    return "exit " + QByteArray::number(r.exitCode) + "\nstdout: " + r.out.left(2000) +
           "\nstderr: " + r.err;
}

// A NumPy .npy file (format 1.0): magic, version, header length, the header dict padded with
// spaces to a multiple of 64 bytes and ended by '\n', then the raw data.
inline QByteArray npy(const QByteArray& descr, const QByteArray& shape, const QByteArray& data) {
    QByteArray header =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) {
        header += ' ';
    }
    header += '\n';
    QByteArray out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xFF);
    out += static_cast<char>((header.size() >> 8) & 0xFF);
    return out + header + data;
}

}  // namespace dpxtest
