#include "core/data/release_files.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/dataset.h"

namespace dpx::data {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

std::string errnoText(int e) {
    return std::strerror(e);
}

std::string directoryOf(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) {
        return ".";
    }
    return slash == 0 ? "/" : path.substr(0, slash);
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

std::optional<std::string> readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void syncDirectory(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);  // best effort: some file systems refuse fsync on directories
        ::close(fd);
    }
}

}  // namespace

std::string neutraliseCsvCell(std::string_view cell) {
    std::string out;
    const bool risky = !cell.empty() &&
                       (cell[0] == '=' || cell[0] == '+' || cell[0] == '-' || cell[0] == '@' ||
                        cell[0] == '\t' || cell[0] == '\r' || cell.substr(0, 3) == "\xE2\x88\x92");
    if (risky) {
        out += '\'';
    }
    out += cell;
    if (out.find_first_of(",\"\r\n") != std::string::npos) {
        std::string quoted = "\"";
        for (char c : out) {
            quoted += c;
            if (c == '"') {
                quoted += '"';
            }
        }
        quoted += '"';
        return quoted;
    }
    return out;
}

std::string releaseCsvText(const HistogramRelease& release) {
    std::string csv = "bin,value\n";
    const auto& labels = release.metadata.binLabels;
    for (std::size_t i = 0; i < release.values.size(); ++i) {
        // Released values are numbers we format ourselves; a negative one starts with '-' and is
        // a number, not a formula, so it is written as is (spreadsheets read it as a number).
        csv += neutraliseCsvCell(i < labels.size() ? labels[i] : std::to_string(i + 1));
        csv += ',';
        csv += formatShortest(release.values[i]);
        csv += '\n';
    }
    return csv;
}

std::string releaseMetadataJson(const HistogramRelease& release) {
    const ReleaseMetadata& m = release.metadata;
    QJsonObject o;
    o[QStringLiteral("format")] = QStringLiteral("dpx-histogram-release");
    o[QStringLiteral("version")] = 1;
    o[QStringLiteral("mechanism")] = qs(m.mechanism);
    QJsonObject sampler;
    sampler[QStringLiteral("algorithm")] = qs(m.samplerAlgorithm);
    sampler[QStringLiteral("reference")] = qs(m.samplerReference);
    sampler[QStringLiteral("randomness")] = qs(m.randomness);
    sampler[QStringLiteral("noise_parameter")] = qs(m.noiseParameter);
    o[QStringLiteral("sampler")] = sampler;
    QJsonObject privacy;
    privacy[QStringLiteral("epsilon")] = qs(m.epsilon);
    privacy[QStringLiteral("epsilon_exact")] = qs(m.epsilonExact);
    privacy[QStringLiteral("delta")] = qs(m.delta);
    privacy[QStringLiteral("delta_achieved")] = qs(m.deltaAchieved);
    privacy[QStringLiteral("rho")] = qs(m.rho);
    privacy[QStringLiteral("guarantee")] = qs(m.guarantee);
    o[QStringLiteral("privacy")] = privacy;
    QJsonObject sens;
    sens[QStringLiteral("l1")] = static_cast<qint64>(m.l1Sensitivity);
    sens[QStringLiteral("l2_bound")] = static_cast<qint64>(m.l2Sensitivity);
    sens[QStringLiteral("l2_squared")] = static_cast<qint64>(m.l2SensitivitySquared);
    sens[QStringLiteral("neighbouring")] = qs(m.neighbouring);
    sens[QStringLiteral("contribution_cap")] = static_cast<qint64>(m.contributionCap);
    o[QStringLiteral("sensitivity")] = sens;
    QJsonObject bins;
    QJsonArray labels, edges;
    for (const auto& l : m.binLabels) {
        labels.append(qs(l));
    }
    for (double e : m.binEdges) {
        edges.append(e);
    }
    bins[QStringLiteral("count")] = static_cast<qint64>(m.binLabels.size());
    bins[QStringLiteral("labels")] = labels;
    bins[QStringLiteral("edges")] = edges;
    bins[QStringLiteral("declared")] = true;
    o[QStringLiteral("bins")] = bins;
    o[QStringLiteral("post_processing")] = qs(m.postProcessing);
    o[QStringLiteral("source")] = qs(m.source);
    o[QStringLiteral("app_version")] = qs(m.appVersion);
    o[QStringLiteral("timestamp")] = qs(m.timestamp);
    QJsonArray notes;
    for (const auto& n : m.notes) {
        notes.append(qs(n));
    }
    o[QStringLiteral("notes")] = notes;
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

std::string metadataPathFor(const std::string& csvPath) {
    const std::string ext = ".csv";
    if (csvPath.size() > ext.size() &&
        csvPath.compare(csvPath.size() - ext.size(), ext.size(), ext) == 0) {
        return csvPath.substr(0, csvPath.size() - ext.size()) + ".json";
    }
    return csvPath + ".json";
}

std::string sha256Hex(std::string_view bytes) {
    return QCryptographicHash::hash(
               QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())),
               QCryptographicHash::Sha256)
        .toHex()
        .toStdString();
}

Status writeFileAtomically(const std::string& path, std::string_view bytes,
                           const AtomicWriteOptions& options) {
    if (path.empty()) {
        return Error{"output path: empty"};
    }
    if (!options.overwrite && exists(path)) {
        return Error{path + ": exists; refusing to overwrite it (use --overwrite to replace it)"};
    }
    const std::string dir = directoryOf(path);
    std::string temp = dir + "/.dpx-tmp-XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) {
        return Error{path + ": cannot create a temporary file in " + dir + " (" + errnoText(errno) +
                     ")"};
    }
    auto fail = [&](const std::string& what, int e) -> Status {
        ::unlink(temp.c_str());
        return Error{path + ": " + what + (e ? " (" + errnoText(e) + ")" : "") +
                     "; nothing was written"};
    };
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            const int e = errno;
            ::close(fd);
            return fail("write failed", e);
        }
        done += static_cast<std::size_t>(w);
    }
    ::fchmod(fd, 0644);
    if (::fsync(fd) != 0) {
        const int e = errno;
        ::close(fd);
        return fail("fsync failed", e);
    }
    if (::close(fd) != 0) {
        return fail("close failed", errno);
    }
    if (options.beforeCommit) {
        if (auto s = options.beforeCommit(temp); !s) {
            return fail(s.error().message, 0);
        }
    }
    if (options.overwrite) {
        if (::rename(temp.c_str(), path.c_str()) != 0) {
            return fail("rename failed", errno);
        }
    } else {
        // link(2) fails with EEXIST if the target appeared meanwhile: never replaced.
        if (::link(temp.c_str(), path.c_str()) != 0) {
            const int e = errno;
            if (e == EEXIST) {
                return fail("exists; refusing to overwrite it (use --overwrite to replace it)", 0);
            }
            return fail("cannot move the temporary file into place", e);
        }
        ::unlink(temp.c_str());
    }
    syncDirectory(dir);
    return okStatus();
}

LedgerRelease ledgerEntryFor(const HistogramRelease& release) {
    LedgerRelease r;
    r.time = release.metadata.timestamp;
    r.mechanism = release.metadata.mechanism;
    r.epsilon = release.metadata.epsilon;
    r.delta = release.metadata.delta;
    r.rho = release.metadata.rho;
    return r;
}

Expected<LedgerRelease> writeRelease(const HistogramRelease& release, PrivacyLedger& ledger,
                                     const ReleaseWritePlan& plan) {
    const std::string csvPath = plan.csvPath;
    const std::string jsonPath = plan.jsonPath.empty() ? metadataPathFor(csvPath) : plan.jsonPath;
    if (csvPath.empty() || plan.ledgerPath.empty()) {
        return Error{"output paths: the CSV and ledger paths must be given"};
    }
    if (csvPath == jsonPath || csvPath == plan.ledgerPath || jsonPath == plan.ledgerPath) {
        return Error{"output paths: the CSV, metadata and ledger files must be different files"};
    }
    LedgerRelease entry = ledgerEntryFor(release);
    if (auto f = ledger.fits(entry); !f) {
        return f.error();
    }
    for (const auto& p : {csvPath, jsonPath}) {
        if (!plan.overwrite && exists(p)) {
            return Error{p + ": exists; refusing to overwrite it (use --overwrite to replace it)"};
        }
    }
    const std::string csv = releaseCsvText(release);
    const std::string json = releaseMetadataJson(release);
    entry.files = {csvPath, jsonPath};
    entry.sha256 = {sha256Hex(csv), sha256Hex(json)};
    PrivacyLedger updated = ledger;
    if (auto s = updated.append(entry); !s) {
        return s.error();
    }
    const std::string ledgerText = updated.toJson();

    // Previous contents, to put back if a later write fails.
    struct Target {
        std::string path;
        const std::string* bytes;
        bool overwrite;
        std::optional<std::string> previous;
    };
    std::vector<Target> targets{{csvPath, &csv, plan.overwrite, std::nullopt},
                                {jsonPath, &json, plan.overwrite, std::nullopt},
                                {plan.ledgerPath, &ledgerText, true, std::nullopt}};
    for (auto& t : targets) {
        if (exists(t.path)) {
            t.previous = readAll(t.path);
            if (!t.previous) {
                return Error{t.path + ": exists but cannot be read; nothing was written"};
            }
        }
    }
    for (std::size_t i = 0; i < targets.size(); ++i) {
        AtomicWriteOptions opt{targets[i].overwrite, plan.beforeCommit};
        if (auto s = writeFileAtomically(targets[i].path, *targets[i].bytes, opt); !s) {
            for (std::size_t k = 0; k < i; ++k) {  // undo the files written so far
                if (targets[k].previous) {
                    (void)writeFileAtomically(targets[k].path, *targets[k].previous, {true, {}});
                } else {
                    ::unlink(targets[k].path.c_str());
                }
            }
            return Error{s.error().message +
                         " (the release was not recorded and no release file "
                         "was left behind)"};
        }
    }
    ledger = std::move(updated);
    return entry;
}

}  // namespace dpx::data
