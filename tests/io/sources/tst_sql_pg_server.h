// A throwaway PostgreSQL server for the tests: initdb in a temporary directory, listening on
// 127.0.0.1 on a free port and on a unix socket in that directory, stopped (immediate shutdown)
// and deleted by the destructor — so also when a test fails. initdb refuses to run as root: as
// root the server runs as the `postgres` system user (runuser), which then owns the directory.
#pragma once

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

class PgTestServer {
public:
    static constexpr const char* kUser = "dpx";
    static constexpr const char* kPassword = "s3cret pass'word";

    PgTestServer() = default;
    PgTestServer(const PgTestServer&) = delete;
    PgTestServer& operator=(const PgTestServer&) = delete;
    ~PgTestServer() { stop(); }

    // Starts the server; false with `error()` saying why (missing package, initdb failure, ...).
    bool start() {
        const QString bin = findBin();
        if (bin.isEmpty()) {
            error_ = QStringLiteral(
                "PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb); "
                "install the Debian package postgresql");
            return false;
        }
        bin_ = bin;
        dir_ = std::make_unique<QTemporaryDir>(QStringLiteral("/tmp/dpx-pg-XXXXXX"));
        if (!dir_->isValid()) {
            error_ = QStringLiteral("cannot create a temporary directory");
            return false;
        }
        asPostgres_ = ::geteuid() == 0;
        const QString d = dir_->path();
        QFile pw(d + QStringLiteral("/pw"));
        if (!pw.open(QIODevice::WriteOnly)) {
            error_ = QStringLiteral("cannot write the password file");
            return false;
        }
        pw.write(kPassword);
        pw.close();
        if (asPostgres_ && !run(QStringLiteral("/bin/chown"),
                                {QStringLiteral("-R"), QStringLiteral("postgres:"), d}, false)) {
            return false;
        }
        port_ = freePort();
        // TCP needs the password (scram); the unix socket trusts (for the setup only).
        if (!run(bin_ + QStringLiteral("/initdb"),
                 {QStringLiteral("-D"), d + QStringLiteral("/data"), QStringLiteral("-U"),
                  QString::fromLatin1(kUser),
                  QStringLiteral("--pwfile=") + d + QStringLiteral("/pw"),
                  QStringLiteral("--auth-host=scram-sha-256"), QStringLiteral("--auth-local=trust"),
                  QStringLiteral("--no-sync"), QStringLiteral("-E"), QStringLiteral("UTF8"),
                  QStringLiteral("--locale=C")})) {
            return false;
        }
        const QString opts = QStringLiteral(
                                 "-c listen_addresses=127.0.0.1 -p %1 -k %2 -c fsync=off "
                                 "-c synchronous_commit=off -c full_page_writes=off")
                                 .arg(port_)
                                 .arg(d);
        if (!run(bin_ + QStringLiteral("/pg_ctl"),
                 {QStringLiteral("-D"), d + QStringLiteral("/data"), QStringLiteral("-o"), opts,
                  QStringLiteral("-l"), d + QStringLiteral("/log"), QStringLiteral("-w"),
                  QStringLiteral("-t"), QStringLiteral("60"), QStringLiteral("start")})) {
            QFile log(d + QStringLiteral("/log"));
            if (log.open(QIODevice::ReadOnly)) {
                error_ += QStringLiteral("\nserver log:\n") + QString::fromUtf8(log.readAll());
            }
            return false;
        }
        running_ = true;
        startWatchdog();
        return true;
    }

    void stop() {
        if (running_) {
            run(bin_ + QStringLiteral("/pg_ctl"),
                {QStringLiteral("-D"), dir_->path() + QStringLiteral("/data"), QStringLiteral("-m"),
                 QStringLiteral("immediate"), QStringLiteral("-w"), QStringLiteral("stop")});
            running_ = false;
        }
        dir_.reset();
    }

    int port() const { return port_; }
    QString socketDir() const { return dir_ ? dir_->path() : QString(); }
    QString error() const { return error_; }

    // A free TCP port on loopback: bind to port 0 and read back what the kernel chose.
    static int freePort() {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0;
        socklen_t len = sizeof a;
        int port = 0;
        if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
            port = ntohs(a.sin_port);
        }
        if (fd >= 0) {
            ::close(fd);
        }
        return port;
    }

private:
    // A detached shell that stops the server and deletes the directory once this process is gone,
    // so a crash or a killed test (timeout) does not leave a server running.
    void startWatchdog() {
        const QString d = dir_->path();
        QString stop = QStringLiteral("'%1/pg_ctl' -D '%2/data' -m immediate stop").arg(bin_, d);
        if (asPostgres_) {
            stop = QStringLiteral("/usr/sbin/runuser -u postgres -- ") + stop;
        }
        const QString script =
            QStringLiteral("while kill -0 %1 2>/dev/null; do sleep 1; done; %2; rm -rf '%3'")
                .arg(QString::number(::getpid()), stop, d);
        QProcess p;
        p.setProgram(QStringLiteral("/bin/sh"));
        p.setArguments({QStringLiteral("-c"), script});
        p.setStandardInputFile(QProcess::nullDevice());
        p.setStandardOutputFile(QProcess::nullDevice());
        p.setStandardErrorFile(QProcess::nullDevice());
        p.startDetached();
    }

    static QString findBin() {
        const QDir root(QStringLiteral("/usr/lib/postgresql"));
        QStringList versions = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
            const QString bin = root.filePath(*it + QStringLiteral("/bin"));
            if (QFileInfo::exists(bin + QStringLiteral("/initdb"))) {
                return bin;
            }
        }
        return {};
    }

    bool run(const QString& program, const QStringList& args, bool asServerUser = true) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        if (asServerUser && asPostgres_) {
            QStringList a{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--"),
                          program};
            a += args;
            p.start(QStringLiteral("/usr/sbin/runuser"), a);
        } else {
            p.start(program, args);
        }
        if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit ||
            p.exitCode() != 0) {
            error_ = program + QStringLiteral(" failed: ") + QString::fromUtf8(p.readAll());
            return false;
        }
        return true;
    }

    QString bin_;
    std::unique_ptr<QTemporaryDir> dir_;
    bool asPostgres_ = false;
    bool running_ = false;
    int port_ = 0;
    QString error_;
};
