#include "io/release/release_files.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/histogram/dataset.h"
#include "core/intervals/release_intervals.h"

namespace dpx::data {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

std::string errnoText(int e) {
    return std::strerror(e);
}

// Writes all of `bytes` to `fd` (retrying on EINTR and short writes); 0 or the errno.
int writeAll(int fd, std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return w < 0 ? errno : EIO;
        }
        done += static_cast<std::size_t>(w);
    }
    return 0;
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

void step(const StepHook& hook, const std::string& name) {
    if (hook) {
        hook(name);
    }
}

// The permission bits of an existing file (to keep a ledger's), or `fallback`.
unsigned modeOf(const std::string& path, unsigned fallback) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<unsigned>(st.st_mode & 07777) : fallback;
}

// A fresh name ".NAME.dpx-pending-<16 hex digits>" beside `path` for a release file's bytes
// before publication (random, so two releases never pick the same; created with O_EXCL).
std::string pendingNameFor(const std::string& path) {
    unsigned char bytes[8] = {};
    std::size_t got = 0;
    while (got < sizeof bytes) {
        const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;  // the O_EXCL create below still refuses a clash
        }
        got += static_cast<std::size_t>(n);
    }
    static const char* hex = "0123456789abcdef";
    std::string suffix;
    for (unsigned char b : bytes) {
        suffix += hex[b >> 4];
        suffix += hex[b & 15];
    }
    return directoryOf(path) + "/." + baseNameOf(path) + ".dpx-pending-" + suffix;
}

// Writes `bytes` to a new file `path` (O_EXCL, mode 0600: not readable by others before it is
// published) and fsyncs it and its directory.
Status writeNewPrivateFile(const std::string& path, std::string_view bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        return Error{path + ": cannot create (" + errnoText(errno) + ")"};
    }
    if (const int e = writeAll(fd, bytes); e != 0) {
        ::close(fd);
        return Error{path + ": write failed (" + errnoText(e) + ")"};
    }
    if (::fsync(fd) != 0) {
        const int e = errno;
        ::close(fd);
        return Error{path + ": fsync failed (" + errnoText(e) + ")"};
    }
    if (::close(fd) != 0) {
        return Error{path + ": close failed (" + errnoText(errno) + ")"};
    }
    syncDirectory(directoryOf(path));
    return okStatus();
}

// Moves a complete temporary file to its final name: chmod 0644, then link (target must not
// exist) or rename (overwrite), then the directory is synced.
Status publishFile(const std::string& temp, const std::string& path, bool overwrite) {
    if (::chmod(temp.c_str(), 0644) != 0) {
        return Error{path + ": cannot set the permissions of " + temp + " (" + errnoText(errno) +
                     ")"};
    }
    if (overwrite) {
        if (::rename(temp.c_str(), path.c_str()) != 0) {
            return Error{path + ": rename failed (" + errnoText(errno) + ")"};
        }
    } else {
        if (::link(temp.c_str(), path.c_str()) != 0) {
            const int e = errno;
            return Error{path + (e == EEXIST
                                     ? std::string(": exists; refusing to overwrite it")
                                     : ": cannot move the file into place (" + errnoText(e) + ")")};
        }
        ::unlink(temp.c_str());
    }
    syncDirectory(directoryOf(path));
    return okStatus();
}

bool removeFile(const std::string& path) {
    return ::unlink(path.c_str()) == 0 || errno == ENOENT;
}

bool hashMatches(const std::string& path, const std::string& sha) {
    auto bytes = readAll(path);
    return bytes && sha256Hex(*bytes) == sha;
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

namespace {

// ",lower,upper" of released value i when the release states intervals (issue #22): value ∓ h,
// or after resize / NoiseFirst around the noisy count before them (postProcessedBounds).
std::string intervalCells(const HistogramRelease& release, std::size_t i) {
    const auto& iv = release.metadata.intervals;
    if (!iv) {
        return {};
    }
    const double value = release.values[i];
    if (iv->aroundNoisy) {
        // runRelease checks the noisy counts before any file is written; should one be missing,
        // the cells stay empty rather than hold a number a reader could take for a bound.
        const auto& noisy = release.noisyBeforePostProcessing;
        if (i >= noisy.size()) {
            return ",,";
        }
        auto b = postProcessedBounds(value, noisy[i], iv->halfWidth);
        return b ? "," + formatShortest(b->lower) + "," + formatShortest(b->upper) : ",,";
    }
    // One half-width per value when they differ (a release through a strategy, issue #23).
    const double h = i < iv->halfWidths.size() ? iv->halfWidths[i] : iv->halfWidth;
    return "," + formatShortest(value - h) + "," + formatShortest(value + h);
}

// The sampling columns of value i when the data were declared a sample (issue #22): the
// population estimate and the half-widths of its sampling error, DP noise and both together.
std::string samplingCells(const HistogramRelease& release, std::size_t i) {
    const auto& sm = release.metadata.sampling;
    if (!sm) {
        return {};
    }
    if (i >= sm->estimates.size()) {
        return ",,,,";
    }
    return "," + formatShortest(sm->estimates[i]) + "," + formatShortest(sm->sampling[i]) + "," +
           formatShortest(sm->noise[i]) + "," + formatShortest(sm->combined[i]);
}

}  // namespace

namespace {

// The name of a published marginal ("sex × class"; "total" for none kept) and the label of one
// attribute of the table (or of the one-dimensional histogram's bins).
std::string publishedMarginalName(const ReleaseMetadata& md, const PublishedMarginalStatement& m) {
    std::string name;
    for (std::size_t i : m.attributes) {
        name += (name.empty() ? "" : " × ") +
                (i < md.attributes.size() ? md.attributes[i].name : std::string("bin"));
    }
    return name.empty() ? "total" : name;
}

const std::vector<std::string>& attributeLabels(const ReleaseMetadata& md, std::size_t i) {
    return md.attributes.empty() ? md.binLabels : md.attributes[i].labels;
}

// A release through an OPT_M strategy that publishes the workload's marginals (issue #23):
// "marginal,NAME1,…,NAMEk,value[,lower,upper]", one line per published marginal cell, marginal
// after marginal; an attribute summed over reads "(all)".
std::string publishedMarginalsCsv(const HistogramRelease& release,
                                  const std::string& intervalHeader) {
    const ReleaseMetadata& md = release.metadata;
    const std::size_t dims = std::max<std::size_t>(md.attributes.size(), 1);
    std::string csv = "marginal,";
    for (std::size_t i = 0; i < dims; ++i) {
        csv += neutraliseCsvCell(md.attributes.empty() ? "bin" : md.attributes[i].name);
        csv += ',';
    }
    csv += "value" + intervalHeader + "\n";
    std::size_t row = 0;
    for (const PublishedMarginalStatement& m : md.strategy->publishedMarginals) {
        const std::string name = neutraliseCsvCell(publishedMarginalName(md, m));
        std::vector<std::size_t> coords(m.attributes.size(), 0);
        for (std::uint64_t v = 0; v < m.values && row < release.values.size(); ++v, ++row) {
            csv += name;
            for (std::size_t i = 0; i < dims; ++i) {
                csv += ',';
                const auto at = std::find(m.attributes.begin(), m.attributes.end(), i);
                if (at == m.attributes.end()) {
                    csv += "(all)";
                    continue;
                }
                const std::size_t c = coords[static_cast<std::size_t>(at - m.attributes.begin())];
                const auto& labels = attributeLabels(md, i);
                csv += neutraliseCsvCell(c < labels.size() ? labels[c] : std::to_string(c));
            }
            csv += ',';
            csv += formatShortest(release.values[row]);
            csv += intervalCells(release, row);
            csv += '\n';
            for (std::size_t a = m.attributes.size(); a-- > 0;) {
                if (++coords[a] <
                    std::max<std::size_t>(attributeLabels(md, m.attributes[a]).size(), 1)) {
                    break;
                }
                coords[a] = 0;
            }
        }
    }
    return csv;
}

}  // namespace

std::string releaseCsvText(const HistogramRelease& release) {
    const auto& attributes = release.metadata.attributes;
    const std::string intervalHeader =
        std::string(release.metadata.intervals ? ",lower,upper" : "") +
        (release.metadata.sampling
             ? ",population_estimate,sampling_half_width,noise_half_width,combined_half_width"
             : "");
    if (release.metadata.strategy && !release.metadata.strategy->publishedMarginals.empty()) {
        return publishedMarginalsCsv(release, intervalHeader);
    }
    if (attributes.size() >= 2) {
        // A table: one column per attribute (the cell's bin label) and the value, cells in C
        // order (the last attribute varies fastest).
        std::string csv;
        for (const ReleaseAttribute& a : attributes) {
            csv += neutraliseCsvCell(a.name);
            csv += ',';
        }
        csv += "value" + intervalHeader + "\n";
        std::vector<std::size_t> coords(attributes.size(), 0);
        for (std::size_t i = 0; i < release.values.size(); ++i) {
            for (std::size_t a = 0; a < attributes.size(); ++a) {
                const auto& labels = attributes[a].labels;
                csv += neutraliseCsvCell(coords[a] < labels.size() ? labels[coords[a]]
                                                                   : std::to_string(coords[a]));
                csv += ',';
            }
            csv += formatShortest(release.values[i]);
            csv += intervalCells(release, i);
            csv += samplingCells(release, i);
            csv += '\n';
            for (std::size_t a = attributes.size(); a-- > 0;) {
                if (++coords[a] < std::max<std::size_t>(attributes[a].labels.size(), 1)) {
                    break;
                }
                coords[a] = 0;
            }
        }
        return csv;
    }
    std::string csv = "bin,value" + intervalHeader + "\n";
    const auto& labels = release.metadata.binLabels;
    for (std::size_t i = 0; i < release.values.size(); ++i) {
        // Released values are numbers we format ourselves; a negative one starts with '-' and is
        // a number, not a formula, so it is written as is (spreadsheets read it as a number).
        csv += neutraliseCsvCell(i < labels.size() ? labels[i] : std::to_string(i + 1));
        csv += ',';
        csv += formatShortest(release.values[i]);
        csv += intervalCells(release, i);
        csv += samplingCells(release, i);
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
    if (!m.attributes.empty()) {
        // A table release: its attributes in order; "bins" above are its cells in C order.
        QJsonArray attributes;
        for (const ReleaseAttribute& a : m.attributes) {
            QJsonObject ao;
            ao[QStringLiteral("name")] = qs(a.name);
            ao[QStringLiteral("binning")] = qs(a.binning);
            ao[QStringLiteral("bins")] = static_cast<qint64>(a.labels.size());
            QJsonArray al, ae;
            for (const auto& l : a.labels) {
                al.append(qs(l));
            }
            for (double e : a.edges) {
                ae.append(e);
            }
            ao[QStringLiteral("labels")] = al;
            ao[QStringLiteral("edges")] = ae;
            ao[QStringLiteral("declared")] = a.declared;
            attributes.append(ao);
        }
        o[QStringLiteral("attributes")] = attributes;
        o[QStringLiteral("cell_order")] =
            QStringLiteral("C (row-major: the last attribute varies fastest)");
    }
    o[QStringLiteral("post_processing")] = qs(m.postProcessing);
    o[QStringLiteral("source")] = qs(m.source);
    if (!m.epsilonChosenOn.empty()) {
        // Issue #22: what ε was chosen on (a public proxy, or the confidential data).
        o[QStringLiteral("epsilon_chosen_on")] = qs(m.epsilonChosenOn);
    }
    o[QStringLiteral("app_version")] = qs(m.appVersion);
    o[QStringLiteral("timestamp")] = qs(m.timestamp);
    QJsonArray notes;
    for (const auto& n : m.notes) {
        notes.append(qs(n));
    }
    o[QStringLiteral("notes")] = notes;
    if (m.strategy) {
        // A release through a designed strategy (issue #23): what was measured, K's entries and
        // the noisy measurements, so that anyone can redo the inference or answer other queries.
        const StrategyReleaseStatement& st = *m.strategy;
        QJsonObject so;
        so[QStringLiteral("method")] = QStringLiteral(
            "matrix mechanism (Li, Miklau, Hay, McGregor & Rastogi 2015) with a strategy designed "
            "by HDMM (McKenna, Miklau, Hay & Machanavajjhala 2018), rounded to integers");
        so[QStringLiteral("workload")] = qs(st.workload);
        so[QStringLiteral("template")] = qs(st.templateName);
        so[QStringLiteral("integer_strategy")] = qs(st.integerStrategy);
        so[QStringLiteral("scale")] = static_cast<qint64>(st.scale);
        so[QStringLiteral("strategy_l1")] = static_cast<qint64>(st.strategyL1);
        so[QStringLiteral("strategy_l2_squared")] = static_cast<qint64>(st.strategyL2Squared);
        so[QStringLiteral("workload_queries")] = static_cast<qint64>(st.queries);
        so[QStringLiteral("expected_rmse")] = st.expectedRmse;
        so[QStringLiteral("rounding_loss")] = st.roundingLoss;
        so[QStringLiteral("inference")] = qs(st.inference);
        so[QStringLiteral("published")] = qs(st.published);
        if (!st.publishedMarginals.empty()) {
            // The values are the workload's marginals, not the cells (the strategy does not
            // determine the cells): which ones, and where they are in the CSV.
            QJsonArray published;
            std::uint64_t firstRow = 1;
            for (const PublishedMarginalStatement& pm : st.publishedMarginals) {
                QJsonObject po;
                po[QStringLiteral("name")] = qs(publishedMarginalName(m, pm));
                QJsonArray kept;
                for (std::size_t i : pm.attributes) {
                    kept.append(qs(i < m.attributes.size() ? m.attributes[i].name : "bin"));
                }
                po[QStringLiteral("attributes")] = kept;
                po[QStringLiteral("values")] = static_cast<qint64>(pm.values);
                po[QStringLiteral("first_csv_row")] = static_cast<qint64>(firstRow);
                firstRow += pm.values;
                published.append(po);
            }
            so[QStringLiteral("published_marginals")] = published;
            so[QStringLiteral("published_values")] = QStringLiteral(
                "The CSV holds the workload's marginals listed in published_marginals, one after "
                "another (each marginal's cells in the order of its attributes, the last fastest; "
                "\"(all)\" marks an attribute summed over), not the table's cells: the strategy "
                "does not measure the full table, so the cells are not determined, while every "
                "listed marginal is, without bias. \"bins\" and \"attributes\" describe the "
                "declared table they are marginals of.");
        }
        const auto ints = [](const std::vector<std::int64_t>& v) {
            QJsonArray a;
            for (std::int64_t x : v) {
                a.append(static_cast<qint64>(x));
            }
            return a;
        };
        // A p-Identity product's factors: per dimension the diagonal and the extra rows.
        const auto factorsOf = [&ints](const std::vector<std::vector<std::int64_t>>& diagonals,
                                       const std::vector<std::vector<std::int64_t>>& extras) {
            QJsonArray factors;
            for (std::size_t d = 0; d < diagonals.size(); ++d) {
                QJsonObject f;
                f[QStringLiteral("diagonal")] = ints(diagonals[d]);
                f[QStringLiteral("extra_rows")] = ints(extras[d]);
                factors.append(f);
            }
            return factors;
        };
        if (!st.factorDiagonals.empty()) {
            so[QStringLiteral("factors")] = factorsOf(st.factorDiagonals, st.factorExtraRows);
            so[QStringLiteral("matrix")] = QStringLiteral(
                "K = K_1 ⊗ … ⊗ K_k, K_d = [diag(diagonal); extra_rows (p × n, row-major)]; rows "
                "and cells in C order");
        }
        if (!st.marginalWeights.empty()) {
            so[QStringLiteral("marginal_weights")] = ints(st.marginalWeights);
            so[QStringLiteral("matrix")] = QStringLiteral(
                "K = [w_a·M_a] over the marginals a with w_a > 0 (bit i of a: attribute i kept), "
                "each marginal's cells in C order");
        }
        if (!st.parts.empty()) {
            QJsonArray parts;
            for (const StrategyPartStatement& ps : st.parts) {
                QJsonObject po;
                po[QStringLiteral("rows")] = static_cast<qint64>(ps.rows);
                if (!ps.factorDiagonals.empty()) {
                    po[QStringLiteral("factors")] =
                        factorsOf(ps.factorDiagonals, ps.factorExtraRows);
                }
                if (!ps.marginalWeights.empty()) {
                    po[QStringLiteral("marginal_weights")] = ints(ps.marginalWeights);
                }
                parts.append(po);
            }
            so[QStringLiteral("parts")] = parts;
            so[QStringLiteral("matrix")] = QStringLiteral(
                "K = [K_1; K_2; …], the parts stacked in order (measurements likewise); a part "
                "with "
                "factors is K_1 ⊗ … ⊗ K_k, K_d = [diag(diagonal); extra_rows (p × n, row-major)], "
                "one with marginal_weights is [w_a·M_a] over the marginals a with w_a > 0 (bit i "
                "of a: attribute i kept); rows and cells in C order");
        }
        so[QStringLiteral("measurements")] = ints(st.measurements);
        o[QStringLiteral("strategy")] = so;
    }
    if (m.intervals) {
        // Issue #22: the level, the method, the half-width as a plain decimal and a sentence; the
        // CSV's lower/upper columns are value ∓ half_width.
        const ReleaseIntervalStatement& iv = *m.intervals;
        QJsonObject io;
        io[QStringLiteral("level")] = iv.level;
        io[QStringLiteral("half_width")] = iv.halfWidth;
        io[QStringLiteral("coverage")] = iv.coverage;
        io[QStringLiteral("method")] = qs(iv.method);
        io[QStringLiteral("sentence")] = qs(iv.sentence);
        io[QStringLiteral("columns")] =
            iv.aroundNoisy
                ? QStringLiteral(
                      "lower = min(value, max(0, noisy - half_width)), upper = max(value, max(0, "
                      "noisy + half_width)), where noisy is the count after noise and before the "
                      "post-processing (the bounds reveal it)")
                : QStringLiteral("lower = value - half_width, upper = value + half_width");
        QJsonObject all;
        all[QStringLiteral("half_width")] = iv.simultaneousHalfWidth;
        all[QStringLiteral("method")] = qs(iv.simultaneousMethod);
        all[QStringLiteral("sentence")] = qs(iv.simultaneousSentence);
        io[QStringLiteral("all_bins_at_once")] = all;
        if (!iv.halfWidths.empty()) {
            // Each value has its own half-width (half_width is the largest).
            QJsonArray widths;
            for (double h : iv.halfWidths) {
                widths.append(h);
            }
            io[QStringLiteral("half_widths")] = widths;
            io[QStringLiteral("columns")] =
                QStringLiteral("lower = value - half_widths[i], upper = value + half_widths[i]");
        }
        o[QStringLiteral("intervals")] = io;
    } else if (m.postProcessing == "resize" || m.postProcessing == "noisefirst") {
        o[QStringLiteral("intervals")] = QStringLiteral(
            "not stated: resize and NoiseFirst change each value by an amount that depends on "
            "every bin, which the noise law alone does not bound");
    }
    if (const auto& sm = m.sampling) {
        // Issue #22: sampling error next to DP noise, only when the data were declared a sample.
        QJsonObject so;
        so[QStringLiteral("level")] = sm->level;
        so[QStringLiteral("population")] = sm->populationSize;
        so[QStringLiteral("design_effect")] = sm->designEffect;
        so[QStringLiteral("sample_size_from_published")] = sm->sampleSize;
        so[QStringLiteral("method")] = qs(sm->method);
        so[QStringLiteral("sentence")] = qs(sm->sentence);
        so[QStringLiteral("columns")] = QStringLiteral(
            "population_estimate = value * population / sample_size_from_published; "
            "sampling_half_width, noise_half_width and combined_half_width at the level, each "
            "around population_estimate");
        o[QStringLiteral("sampling")] = so;
    }
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
    const std::string name = baseNameOf(path);
    std::string temp = dir + "/." + name + ".dpx-tmp-XXXXXX";
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
    if (const int e = writeAll(fd, bytes); e != 0) {
        ::close(fd);
        return fail("write failed", e);
    }
    ::fchmod(fd, static_cast<mode_t>(options.mode));
    if (::fsync(fd) != 0) {
        const int e = errno;
        ::close(fd);
        return fail("fsync failed", e);
    }
    if (::close(fd) != 0) {
        return fail("close failed", errno);
    }
    step(options.onStep, name + " temp written");
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
    step(options.onStep, name + " written");
    return okStatus();
}

Status writeLedgerFile(const std::string& ledgerPath, const PrivacyLedger& ledger,
                       const std::function<Status(const std::string&)>& beforeCommit,
                       const StepHook& onStep) {
    AtomicWriteOptions opt;
    opt.overwrite = true;
    opt.beforeCommit = beforeCommit;
    opt.mode = modeOf(ledgerPath, 0644);
    opt.onStep = onStep;
    return writeFileAtomically(ledgerPath, ledger.toJson(), opt);
}

LedgerRelease ledgerEntryFor(const HistogramRelease& release) {
    LedgerRelease r;
    r.time = release.metadata.timestamp;
    r.mechanism = release.metadata.mechanism;
    r.epsilon = release.metadata.epsilon;
    r.delta = release.metadata.delta;
    r.rho = release.metadata.rho;
    // What a PLD ledger composes (written only there): the noise from the metadata.
    const ReleaseMetadata& md = release.metadata;
    const std::string sigma2Prefix = "sigma^2 = ";
    const std::string sigma2 = md.noiseParameter.rfind(sigma2Prefix, 0) == 0
                                   ? md.noiseParameter.substr(sigma2Prefix.size())
                                   : std::string();
    // A release through a designed strategy (issue #23) changes many rows of K·x for one person:
    // composed as a generic ε-DP mechanism, i.e. randomized response, which dominates every ε-DP
    // mechanism (Kairouz, Oh & Viswanath 2015) — not as one discrete Laplace bin.
    // Through a strategy the discrete Gaussian is a multivariate one whose change spreads over
    // many rows with different weights; the ledger's discrete Gaussian is a one-bin law, and the
    // continuous Gaussian's loss with the same Δ2 is not proven to dominate the discrete one's in
    // several dimensions (CKS 2020 Thm 15 has an extra term), so it is not composed here.
    if (md.strategy && md.mechanism == releaseMechanismName(ReleaseMechanism::DiscreteGaussian)) {
        r.lossError =
            "a PLD ledger does not account a discrete Gaussian measured through a designed "
            "strategy (one person changes many of its rows; its exact privacy loss is not the "
            "one-bin law the ledger composes); use a ledger of basic or zcdp composition, which "
            "counts its (ε, δ) or its ρ = Δ2²/(2σ²)";
        return r;
    }
    auto loss = ledgerLossFor(md.strategy ? std::string("pure-dp") : md.mechanism,
                              md.epsilonExact.empty() ? md.epsilon : md.epsilonExact, sigma2,
                              md.neighbouring, md.contributionCap);
    if (loss) {
        r.loss = *loss;
    } else {
        r.lossError = loss.error().message;
    }
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
        // A directory that cannot take the files is found before anything is charged.
        if (::access(directoryOf(p).c_str(), W_OK | X_OK) != 0) {
            return Error{p + ": cannot write in " + directoryOf(p) + " (" + errnoText(errno) +
                         "); nothing was written"};
        }
    }
    const std::string csv = releaseCsvText(release);
    const std::string json = releaseMetadataJson(release);
    struct Target {
        std::string path;
        const std::string* bytes;
        std::string temp;
        std::optional<std::string> previous;  // overwrite: the content replaced
        bool published = false;
    };
    std::vector<Target> targets{{csvPath, &csv, pendingNameFor(csvPath), std::nullopt, false},
                                {jsonPath, &json, pendingNameFor(jsonPath), std::nullopt, false}};
    if (plan.overwrite) {
        for (auto& t : targets) {
            if (exists(t.path)) {
                t.previous = readAll(t.path);
                if (!t.previous) {
                    return Error{t.path + ": exists but cannot be read; nothing was written"};
                }
            }
        }
    }
    entry.files = {csvPath, jsonPath};
    entry.sha256 = {sha256Hex(csv), sha256Hex(json)};
    entry.temps = {targets[0].temp, targets[1].temp};
    entry.state = ReleaseState::Pending;
    entry.overwrite = plan.overwrite;

    // 1. The charge, durable before any released value is written anywhere.
    PrivacyLedger updated = ledger;
    if (auto s = updated.append(entry); !s) {
        return s.error();
    }
    const std::size_t index = updated.releases().size() - 1;
    if (auto s = writeLedgerFile(plan.ledgerPath, updated, plan.beforeCommit, plan.onStep); !s) {
        return Error{s.error().message + " (the release was not charged and nothing was written)"};
    }
    ledger = updated;
    step(plan.onStep, "charged");

    // A failure after the charge: remove what this call wrote; withdraw the charge only if no
    // released value ever reached a final name, else keep it as "not published".
    auto failAfterCharge = [&](const std::string& why) -> Error {
        bool visible = false;
        bool cleaned = true;
        for (auto& t : targets) {
            cleaned = removeFile(t.temp) && cleaned;
            if (t.published) {
                visible = true;
                if (t.previous) {
                    AtomicWriteOptions restore;
                    restore.overwrite = true;
                    cleaned = writeFileAtomically(t.path, *t.previous, restore) && cleaned;
                } else {
                    cleaned = removeFile(t.path) && cleaned;
                }
            }
        }
        PrivacyLedger settled = ledger;
        std::string outcome;
        if (!visible && cleaned) {
            (void)settled.withdrawPending(index);
            outcome = "nothing was published and the charge was withdrawn";
        } else {
            (void)settled.settle(index, ReleaseState::NotPublished, "publication failed: " + why);
            outcome = "the budget stays charged (charged, not published)" +
                      std::string(cleaned ? "; the files written were removed"
                                          : "; some files could not be removed");
        }
        if (writeLedgerFile(plan.ledgerPath, settled)) {
            ledger = settled;
        } else {
            outcome =
                "the budget stays charged; the ledger records the release as pending and "
                "the next run resolves it";
        }
        return Error{why + "; " + outcome};
    };

    // 2. The bytes, in private temporaries named by the ledger.
    for (auto& t : targets) {
        if (auto s = writeNewPrivateFile(t.temp, *t.bytes); !s) {
            return failAfterCharge(s.error().message);
        }
        step(plan.onStep, "temp written: " + baseNameOf(t.path));
    }
    // 3. Publication.
    for (auto& t : targets) {
        if (plan.beforeCommit) {
            if (auto s = plan.beforeCommit(t.temp); !s) {
                return failAfterCharge(t.path + ": " + s.error().message);
            }
        }
        if (auto s = publishFile(t.temp, t.path, plan.overwrite); !s) {
            return failAfterCharge(s.error().message);
        }
        t.published = true;
        step(plan.onStep, "published: " + baseNameOf(t.path));
    }
    // 4. Settled. If this last write fails the release is published and charged; the ledger file
    // still says pending and the next run marks it published (its files match).
    PrivacyLedger settled = ledger;
    (void)settled.settle(index, ReleaseState::Published, "");
    if (writeLedgerFile(plan.ledgerPath, settled, {}, plan.onStep)) {
        ledger = settled;
    }
    step(plan.onStep, "done");
    LedgerRelease recorded = ledger.releases()[index];
    return recorded;
}

Expected<RecoveryResult> recoverPendingReleases(PrivacyLedger& ledger,
                                                const std::string& ledgerPath,
                                                const StepHook& onStep) {
    RecoveryResult result;
    PrivacyLedger updated = ledger;
    std::vector<std::string> toRemove;  // temporaries, removed once the ledger is written
    for (std::size_t i = 0; i < updated.releases().size(); ++i) {
        const LedgerRelease r = updated.releases()[i];
        if (r.state != ReleaseState::Pending) {
            continue;
        }
        const std::string what = "release of " + r.time + " (" + r.mechanism +
                                 ", ε = " + r.epsilon + ", files " +
                                 (r.files.empty() ? std::string("none") : r.files.front()) + ")";
        bool allInPlace = true;
        bool canComplete = true;
        for (std::size_t f = 0; f < r.files.size(); ++f) {
            const bool inPlace = hashMatches(r.files[f], r.sha256[f]);
            allInPlace = allInPlace && inPlace;
            if (!inPlace) {
                const bool tempComplete = hashMatches(r.temps[f], r.sha256[f]);
                const bool nameFree = r.overwrite || !exists(r.files[f]);
                canComplete = canComplete && tempComplete && nameFree;
            }
        }
        if (allInPlace) {
            (void)updated.settle(i, ReleaseState::Published, "");
            result.notes.push_back(what +
                                   ": interrupted after its files were published; now "
                                   "recorded as published");
        } else if (canComplete) {
            bool ok = true;
            for (std::size_t f = 0; f < r.files.size() && ok; ++f) {
                if (!hashMatches(r.files[f], r.sha256[f])) {
                    ok = static_cast<bool>(publishFile(r.temps[f], r.files[f], r.overwrite));
                }
            }
            if (ok) {
                (void)updated.settle(i, ReleaseState::Published,
                                     "publication completed by a later run after an interruption");
                result.notes.push_back(what +
                                       ": interrupted before its files were published; the "
                                       "charged release has now been published");
            } else {
                (void)updated.settle(i, ReleaseState::NotPublished,
                                     "interrupted; its files could not be published later");
                result.notes.push_back(what +
                                       ": charged, not published (interrupted, and its "
                                       "files could not be moved into place); the budget "
                                       "stays spent");
            }
        } else {
            (void)updated.settle(i, ReleaseState::NotPublished,
                                 "interrupted before its files were complete");
            result.notes.push_back(what +
                                   ": charged, not published (interrupted before its files "
                                   "were complete); the budget stays spent");
        }
        for (const auto& t : r.temps) {
            toRemove.push_back(t);
        }
    }
    if (updated.pendingCount() != ledger.pendingCount()) {
        if (auto s = writeLedgerFile(ledgerPath, updated, {}, onStep); !s) {
            return Error{"recovering the interrupted releases of the ledger: " + s.error().message};
        }
        ledger = updated;
        result.ledgerChanged = true;
    }
    for (const auto& t : toRemove) {
        removeFile(t);
    }
    for (auto& n : removeStaleLedgerTemporaries(ledgerPath)) {
        result.notes.push_back(std::move(n));
    }
    return result;
}

std::vector<std::string> removeStaleLedgerTemporaries(const std::string& ledgerPath) {
    // The ledger's own temporaries (".NAME.dpx-tmp-*" beside it) are left by a run killed while
    // writing the ledger; they hold no released value. Only this ledger's, only under its lock.
    const std::string dir = directoryOf(ledgerPath);
    const std::string prefix = "." + baseNameOf(ledgerPath) + ".dpx-tmp-";
    std::vector<std::string> stale;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name.rfind(prefix, 0) == 0) {
                stale.push_back(dir + "/" + name);
            }
        }
        ::closedir(d);
    }
    std::vector<std::string> notes;
    for (const auto& t : stale) {
        if (removeFile(t)) {
            notes.push_back("removed a temporary copy of the ledger left by an interrupted run (" +
                            t + ")");
        }
    }
    if (!stale.empty()) {
        syncDirectory(dir);
    }
    return notes;
}

}  // namespace dpx::data

// ---- A release read back (issue #22) ------------------------------------------------------------

namespace dpx::data {

namespace {

// Reads members of one JSON object; the first problem is kept and named by its path.
class JsonReader {
public:
    JsonReader(QJsonObject object, std::string where, std::string* error)
        : o_(std::move(object)), where_(std::move(where)), error_(error) {}

    bool has(const char* key) const { return o_.contains(QLatin1String(key)); }
    std::string name(const char* key) const { return where_ + key; }

    std::string text(const char* key) const {
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isString()) {
            fail(key, "a string");
            return {};
        }
        return v.toString().toStdString();
    }
    double number(const char* key) const {
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isDouble()) {
            fail(key, "a number");
            return 0;
        }
        return v.toDouble();
    }
    std::int64_t integer(const char* key) const {
        const QJsonValue v = o_.value(QLatin1String(key));
        const double d = v.toDouble();
        if (!v.isDouble() || d != std::floor(d) || std::abs(d) > 9.0e15) {
            fail(key, "a whole number");
            return 0;
        }
        return static_cast<std::int64_t>(d);
    }
    bool boolean(const char* key) const {
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isBool()) {
            fail(key, "true or false");
            return false;
        }
        return v.toBool();
    }
    QJsonObject object(const char* key) const {
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isObject()) {
            fail(key, "an object");
            return {};
        }
        return v.toObject();
    }
    QJsonArray array(const char* key) const {
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isArray()) {
            fail(key, "an array");
            return {};
        }
        return v.toArray();
    }
    std::vector<std::string> texts(const char* key) const {
        std::vector<std::string> out;
        for (const QJsonValue& v : array(key)) {
            if (!v.isString()) {
                fail(key, "an array of strings");
                return {};
            }
            out.push_back(v.toString().toStdString());
        }
        return out;
    }
    std::vector<double> numbers(const char* key) const {
        std::vector<double> out;
        for (const QJsonValue& v : array(key)) {
            if (!v.isDouble()) {
                fail(key, "an array of numbers");
                return {};
            }
            out.push_back(v.toDouble());
        }
        return out;
    }
    std::vector<std::int64_t> integers(const char* key) const {
        std::vector<std::int64_t> out;
        for (const QJsonValue& v : array(key)) {
            const double d = v.toDouble();
            if (!v.isDouble() || d != std::floor(d) || std::abs(d) > 9.0e15) {
                fail(key, "an array of whole numbers");
                return {};
            }
            out.push_back(static_cast<std::int64_t>(d));
        }
        return out;
    }
    JsonReader child(const char* key) const {
        return JsonReader(object(key), where_ + key + ".", error_);
    }
    JsonReader element(const QJsonValue& v, const std::string& where) const {
        if (!v.isObject() && error_->empty()) {
            *error_ = "\"" + where + "\" must be an object";
        }
        return JsonReader(v.toObject(), where + ".", error_);
    }
    bool ok() const { return error_->empty(); }

private:
    void fail(const char* key, const char* what) const {
        if (error_->empty()) {
            *error_ = o_.contains(QLatin1String(key)) ? "\"" + where_ + key + "\" must be " + what
                                                      : "\"" + where_ + key + "\" is missing";
        }
    }
    QJsonObject o_;
    std::string where_;
    std::string* error_;
};

// A p-Identity product's factors (diagonal and extra rows per dimension).
void readFactors(const JsonReader& r, const char* key, const std::string& where,
                 std::vector<std::vector<std::int64_t>>& diagonals,
                 std::vector<std::vector<std::int64_t>>& extras) {
    const QJsonArray factors = r.array(key);
    for (qsizetype i = 0; i < factors.size(); ++i) {
        const JsonReader f = r.element(factors[i], where + key + "[" + std::to_string(i) + "]");
        diagonals.push_back(f.integers("diagonal"));
        extras.push_back(f.integers("extra_rows"));
    }
}

StrategyReleaseStatement readStrategy(const JsonReader& so) {
    StrategyReleaseStatement st;
    st.workload = so.text("workload");
    st.templateName = so.text("template");
    st.integerStrategy = so.text("integer_strategy");
    st.scale = so.integer("scale");
    st.strategyL1 = so.integer("strategy_l1");
    st.strategyL2Squared = so.integer("strategy_l2_squared");
    st.queries = static_cast<std::uint64_t>(so.integer("workload_queries"));
    st.expectedRmse = so.number("expected_rmse");
    st.roundingLoss = so.number("rounding_loss");
    st.inference = so.text("inference");
    if (so.has("factors")) {
        readFactors(so, "factors", "strategy.", st.factorDiagonals, st.factorExtraRows);
    }
    if (so.has("marginal_weights")) {
        st.marginalWeights = so.integers("marginal_weights");
    }
    if (so.has("parts")) {
        const QJsonArray parts = so.array("parts");
        for (qsizetype i = 0; i < parts.size(); ++i) {
            const std::string where = "strategy.parts[" + std::to_string(i) + "]";
            const JsonReader po = so.element(parts[i], where);
            StrategyPartStatement ps;
            ps.rows = static_cast<std::uint64_t>(po.integer("rows"));
            if (po.has("factors")) {
                readFactors(po, "factors", where + ".", ps.factorDiagonals, ps.factorExtraRows);
            }
            if (po.has("marginal_weights")) {
                ps.marginalWeights = po.integers("marginal_weights");
            }
            st.parts.push_back(std::move(ps));
        }
    }
    st.measurements = so.integers("measurements");
    return st;
}

// RFC 4180 records of a release CSV (releaseCsvText: LF line ends, quoted cells with doubled
// quotes); an Error for an unterminated quote or text after a closing quote.
Expected<std::vector<std::vector<std::string>>> csvRecords(const std::string& text) {
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string cell;
    std::size_t line = 1;
    std::size_t i = 0;
    const std::size_t n = text.size();
    bool atRecordStart = true;
    while (i < n) {
        if (text[i] == '"') {
            const std::size_t start = line;
            ++i;
            for (;;) {
                if (i >= n) {
                    return Error{"line " + std::to_string(start) + ": a quote is never closed"};
                }
                if (text[i] == '"') {
                    if (i + 1 < n && text[i + 1] == '"') {
                        cell += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                if (text[i] == '\n') {
                    ++line;
                }
                cell += text[i++];
            }
            if (i < n && text[i] != ',' && text[i] != '\n') {
                return Error{"line " + std::to_string(line) + ": text after a closing quote"};
            }
        }
        while (i < n && text[i] != ',' && text[i] != '\n') {
            cell += text[i++];
        }
        atRecordStart = false;
        record.push_back(std::move(cell));
        cell.clear();
        if (i < n && text[i] == ',') {
            ++i;
            if (i == n) {
                record.emplace_back();
            }
            continue;
        }
        // '\n' or the end.
        records.push_back(std::move(record));
        record.clear();
        atRecordStart = true;
        if (i < n) {
            ++i;
            ++line;
        }
    }
    if (!atRecordStart) {
        records.push_back(std::move(record));
    }
    return records;
}

}  // namespace

std::string csvPathForMetadata(const std::string& jsonPath) {
    const std::string ext = ".json";
    if (jsonPath.size() > ext.size() &&
        jsonPath.compare(jsonPath.size() - ext.size(), ext.size(), ext) == 0) {
        const std::string stem = jsonPath.substr(0, jsonPath.size() - ext.size());
        if (exists(stem + ".csv")) {
            return stem + ".csv";
        }
        if (exists(stem)) {
            return stem;
        }
        return stem + ".csv";
    }
    return jsonPath + ".csv";
}

Expected<ReleaseMetadata> releaseMetadataFromJson(const std::string& json) {
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &parse);
    if (parse.error != QJsonParseError::NoError) {
        return Error{"not JSON (" + parse.errorString().toStdString() + " at byte " +
                     std::to_string(parse.offset) + ")"};
    }
    if (!doc.isObject()) {
        return Error{"not a JSON object"};
    }
    const QJsonObject root = doc.object();
    if (root.value(QStringLiteral("format")).toString() !=
        QStringLiteral("dpx-histogram-release")) {
        return Error{
            "not the metadata of a DP Explorer release (\"format\" is not "
            "\"dpx-histogram-release\")"};
    }
    if (!root.value(QStringLiteral("version")).isDouble() ||
        root.value(QStringLiteral("version")).toDouble() != 1) {
        const QJsonValue v = root.value(QStringLiteral("version"));
        return Error{"metadata version " +
                     (v.isDouble() ? formatShortest(v.toDouble()) : std::string("(none)")) +
                     " is not the version 1 this program reads (written by another version of "
                     "DP Explorer)"};
    }
    std::string error;
    const JsonReader r(root, "", &error);
    ReleaseMetadata m;
    m.mechanism = r.text("mechanism");
    const JsonReader sampler = r.child("sampler");
    m.samplerAlgorithm = sampler.text("algorithm");
    m.samplerReference = sampler.text("reference");
    m.randomness = sampler.text("randomness");
    m.noiseParameter = sampler.text("noise_parameter");
    const JsonReader privacy = r.child("privacy");
    m.epsilon = privacy.text("epsilon");
    m.epsilonExact = privacy.text("epsilon_exact");
    m.delta = privacy.text("delta");
    m.deltaAchieved = privacy.text("delta_achieved");
    m.rho = privacy.text("rho");
    m.guarantee = privacy.text("guarantee");
    const JsonReader sens = r.child("sensitivity");
    m.l1Sensitivity = sens.integer("l1");
    m.l2Sensitivity = sens.integer("l2_bound");
    m.l2SensitivitySquared = sens.integer("l2_squared");
    m.neighbouring = sens.text("neighbouring");
    m.contributionCap = sens.integer("contribution_cap");
    const JsonReader bins = r.child("bins");
    m.binLabels = bins.texts("labels");
    m.binEdges = bins.numbers("edges");
    const std::int64_t count = bins.integer("count");
    if (r.has("attributes")) {
        const QJsonArray attributes = r.array("attributes");
        for (qsizetype i = 0; i < attributes.size(); ++i) {
            const JsonReader a = r.element(attributes[i], "attributes[" + std::to_string(i) + "]");
            ReleaseAttribute at;
            at.name = a.text("name");
            at.binning = a.text("binning");
            at.labels = a.texts("labels");
            at.edges = a.numbers("edges");
            at.declared = a.boolean("declared");
            m.attributes.push_back(std::move(at));
        }
    }
    m.postProcessing = r.text("post_processing");
    m.source = r.text("source");
    if (r.has("epsilon_chosen_on")) {
        m.epsilonChosenOn = r.text("epsilon_chosen_on");
    }
    m.appVersion = r.text("app_version");
    m.timestamp = r.text("timestamp");
    m.notes = r.texts("notes");
    if (r.has("strategy")) {
        m.strategy = readStrategy(r.child("strategy"));
    }
    if (r.has("intervals") && root.value(QStringLiteral("intervals")).isObject()) {
        const JsonReader io = r.child("intervals");
        ReleaseIntervalStatement iv;
        iv.level = io.number("level");
        iv.halfWidth = io.number("half_width");
        iv.coverage = io.number("coverage");
        iv.method = io.text("method");
        iv.sentence = io.text("sentence");
        iv.aroundNoisy = io.text("columns").rfind("lower = min(", 0) == 0;
        const JsonReader all = io.child("all_bins_at_once");
        iv.simultaneousHalfWidth = all.number("half_width");
        iv.simultaneousMethod = all.text("method");
        iv.simultaneousSentence = all.text("sentence");
        if (io.has("half_widths")) {
            iv.halfWidths = io.numbers("half_widths");
        }
        m.intervals = std::move(iv);
    }
    if (r.has("sampling")) {
        const JsonReader so = r.child("sampling");
        ReleaseSamplingStatement sm;
        sm.level = so.number("level");
        sm.populationSize = so.number("population");
        sm.designEffect = so.number("design_effect");
        sm.sampleSize = so.number("sample_size_from_published");
        sm.method = so.text("method");
        sm.sentence = so.text("sentence");
        m.sampling = std::move(sm);  // the per-value columns are the CSV's (releaseFromCsv)
    }
    if (!error.empty()) {
        return Error{"metadata: " + error};
    }
    if (count < 1 || static_cast<std::uint64_t>(count) != m.binLabels.size()) {
        return Error{"metadata: \"bins.count\" (" + std::to_string(count) + ") is not the " +
                     std::to_string(m.binLabels.size()) + " labels it lists"};
    }
    return m;
}

Expected<HistogramRelease> releaseFromCsv(const std::string& csvText, ReleaseMetadata metadata) {
    auto records = csvRecords(csvText);
    if (!records) {
        return Error{"CSV: " + records.error().message};
    }
    const std::size_t bins = metadata.binLabels.size();
    if (records->size() != bins + 1) {
        return Error{"CSV: " + std::to_string(records->empty() ? 0 : records->size() - 1) +
                     " lines of values, but the metadata lists " + std::to_string(bins) +
                     " bins (not the CSV of this metadata)"};
    }
    const std::size_t valueAt = metadata.attributes.size() >= 2 ? metadata.attributes.size() : 1;
    const std::size_t samplingAt = valueAt + 1 + (metadata.intervals ? 2 : 0);
    HistogramRelease release;
    auto number = [&](std::size_t row, std::size_t col) -> Expected<double> {
        const std::string& cell = (*records)[row][col];
        char* end = nullptr;
        const double v = std::strtod(cell.c_str(), &end);
        if (cell.empty() || end != cell.c_str() + cell.size() || !std::isfinite(v)) {
            return Error{"CSV line " + std::to_string(row + 1) + ", column " +
                         std::to_string(col + 1) + ": '" + cell + "' is not a number"};
        }
        return v;
    };
    for (std::size_t row = 1; row <= bins; ++row) {
        if ((*records)[row].size() != (*records)[0].size()) {
            return Error{"CSV line " + std::to_string(row + 1) + " has " +
                         std::to_string((*records)[row].size()) + " cells, the header " +
                         std::to_string((*records)[0].size())};
        }
        if ((*records)[row].size() <= valueAt) {
            return Error{"CSV line " + std::to_string(row + 1) + " has no value"};
        }
        auto v = number(row, valueAt);
        if (!v) {
            return v.error();
        }
        release.values.push_back(*v);
        if (metadata.sampling) {
            if ((*records)[row].size() < samplingAt + 4) {
                return Error{"CSV line " + std::to_string(row + 1) +
                             " lacks the sampling columns the metadata declares"};
            }
            std::vector<double>* columns[] = {
                &metadata.sampling->estimates, &metadata.sampling->sampling,
                &metadata.sampling->noise, &metadata.sampling->combined};
            for (std::size_t c = 0; c < 4; ++c) {
                auto x = number(row, samplingAt + c);
                if (!x) {
                    return x.error();
                }
                columns[c]->push_back(*x);
            }
        }
    }
    release.metadata = std::move(metadata);
    // What this program writes for these values, cell by cell.
    auto expected = csvRecords(releaseCsvText(release));
    if (!expected || expected->size() != records->size()) {
        return Error{"CSV: does not have the form of a release CSV"};
    }
    const bool skipBounds = release.metadata.intervals && release.metadata.intervals->aroundNoisy;
    for (std::size_t row = 0; row < records->size(); ++row) {
        const auto& got = (*records)[row];
        const auto& want = (*expected)[row];
        if (got.size() != want.size()) {
            return Error{"CSV line " + std::to_string(row + 1) + " has " +
                         std::to_string(got.size()) + " cells where this release has " +
                         std::to_string(want.size())};
        }
        for (std::size_t c = 0; c < got.size(); ++c) {
            if (row > 0 && skipBounds && (c == valueAt + 1 || c == valueAt + 2)) {
                continue;  // around the noisy counts, which the files do not hold
            }
            if (got[c] != want[c]) {
                return Error{"CSV line " + std::to_string(row + 1) + ", column " +
                             std::to_string(c + 1) + ": '" + got[c] + "' where the metadata " +
                             "implies '" + want[c] + "' (not the CSV of this metadata, or edited)"};
            }
        }
    }
    return release;
}

}  // namespace dpx::data
