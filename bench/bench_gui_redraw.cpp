// GUI redraw latency (issue #4): the time from an ε change to "all visible plots redrawn", in
// the real dpx::ui::MainWindow (1600×1000 by default) driven offscreen (QT_QPA_PLATFORM is set
// to "offscreen" unless already set; QSettings go to QStandardPaths' test locations).
//
// One change, timed with std::chrono::steady_clock on the GUI thread:
//   t0        just before document()->setEpsilon(e);
//   applied   setEpsilon returned (undo step, ExplorerDocument::changed: panels updated, the
//             release job started on the JobRunner's pool and the Monte Carlo job cancelled);
//   deliver   the job's result starts being processed on the GUI thread (the QMetaCallEvent the
//             JobRunner posts to itself, seen by an event filter on the runner), so
//             worker = deliver − applied includes any wait for a free pool thread;
//   shown     MainWindow::releaseShown: showRelease() has handed the release to every view, on
//             every tab. Views replot through replotWhenVisible() (ui/widgets/plot_refresh.h): a
//             plot on the current tab replots now — HistogramTab and ErrorsTab with QCustomPlot's
//             default priority (layers drawn into the paint buffers, then a synchronous repaint
//             of the widget inside replot()), MatrixTab's heatmap, profile and noise plots with
//             rpQueuedReplot (a replot queued for the next event-loop pass) — and a plot on a
//             hidden tab only marks itself stale and replots when its tab is shown;
//   t1        "redrawn": right after `shown` the bench delivers exactly the pending redraw events
//             (QCoreApplication::sendPostedEvents for QEvent::MetaCall on each plot — the queued
//             replots — then QEvent::UpdateRequest on the window — the paint of any other dirty
//             widget and the flush). t1 is when that returns and every visible plot has had a
//             paint event since its last replot started; if not, the event loop runs until it
//             has (counted in `fallback`; should stay 0).
// median_ms/p90_ms are of t1 − t0. visible_ms is t0 → end of the last paint of a plot on the
// current tab. The Monte Carlo passes start after `shown` and are refinements, not part of the
// latency; `mc_in_window` counts changes whose window saw a Monte Carlo result delivered (should
// stay 0).
//
// Since hidden tabs are redrawn when shown, the bench also times that: after the changes on a
// tab, --switches times (an ε change on that tab, then showTab(other) → other's visible plots
// painted, then back), one line per pair:
//   RESULT case=gui-tab-switch scenario=S from=T to=U mc=MODE median_ms=… max_ms=…
//
// Two modes (--modes):
//   background  the engine's default Monte Carlo passes (quick 2 000 trials, then the long pass of
//               ExplorerEngine::kLongTrials); after each change the event loop runs for --gap-ms
//               (a user pausing between two slider moves), so the next change lands while the
//               long pass runs and has to cancel it, as a user would see it (`mc_busy_at_change`
//               counts those; `jobs_in_flight_at_change` is the mean number of pool jobs whose
//               worker had not returned yet, cancelled ones included);
//   quiet       ExplorerEngine::setLongTrials(--quiet-long-trials) and, after each change, the
//               event loop runs until the runner is idle (at most --settle-s, then the jobs are
//               cancelled and their workers awaited): every change starts on idle cores.
//
// Scenarios (--scenarios), all the telemetry example binned equal-width on [0, 24] h:
//   count-256     --rows-256 rows (5 000: largest bin 71), 256 bins, truncated geometric (GM)
//                 with n = --count-n-256 (100: a 101×101 heatmap), exact identity/clamp SSE, L1;
//   laplace-256   same data, Laplace (exact errors where a method exists);
//   count-4096    --rows-4096 rows (10⁶: largest bin 641 ≤ 2000), 4096 bins, GM with
//                 n = --count-n-4096 (0: the largest count); a refusal is printed as
//                 "RESULT ... refused=..." instead;
//   laplace-4096  same data, Laplace.
// For each scenario, mode and tab (--tabs: the tab current during the changes), --warmup changes
// then --changes changes, ε cycling through --epsilons (never the current value). One line per
// cell:
//   RESULT case=gui-redraw scenario=S tab=T mc=MODE median_ms=… p90_ms=… changes=… with the
//   medians of the stages (apply = applied − t0, worker, gui = shown − deliver, paint = t1 −
//   shown), per plot the mean replots per change (0 on hidden tabs) and the median replot
//   and paint times (beforeReplot → afterReplot, which includes a synchronous repaint; paint
//   events timed by an event filter that delivers them itself).
//
// The Table tab (issue #19, --table-scenarios, after the scenarios above): a 256 × 256 table
// (`skewed-256`: counts falling off geometrically from one corner, every cell occupied;
// `sparse-256`: 5 % of the cells occupied) on the Table tab, and --changes ε changes. The bench
// times the tab alone (the window's release job is measured above), so it plays the data side: for
// each change it draws the new noisy table (Laplace, b = 1/ε; estimate clamped at 0) beforehand,
// then times TableTab::setInputs → the tab's visible plot painted (the same flush as above), with
// no box selected and with a 64 × 64 box selected (its readout recomputed: queryReadout on 4 096
// cells, on a worker: readout_ms is t0 → the readout shown, not part of the redraw). One line per
// scenario and selection:
//   RESULT case=table-redraw scenario=S box=none|64x64 median_ms=… p90_ms=… set_ms=… paint_ms=…
//   gui_cpu_ms=… readout_ms=…
// gui_cpu_ms is the GUI thread's CPU time over t0 → painted (CLOCK_THREAD_CPUTIME_ID): the work
// itself, without the waits for a core when the machine is shared.
#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QEventLoop>
#include <QStandardPaths>
#include <QTimer>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/model/explorer_state.h"
#include "ui/tabs/errors_tab.h"
#include "ui/tabs/histogram_tab.h"
#include "ui/tabs/matrix/matrix_tab.h"
#include "ui/tabs/table/table_tab.h"
#include "ui/widgets/qcustomplot_include.h"

namespace {

using namespace dpx::bench;
using dpx::ui::ExplorerState;
using dpx::ui::MainWindow;
using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

// Nearest-rank quantile.
double quantile(std::vector<double> v, double q) {
    if (v.empty()) {
        return std::nan("");
    }
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, rank > 0 ? rank - 1 : 0)];
}

std::string loadAverage() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    if (!(f >> a >> b >> c)) {
        return "unknown";
    }
    return a + "," + b + "," + c;
}

// The plots of the window, in a fixed order.
enum PlotId { Hist, Heatmap, Profile, Noise, Errors, kPlots };
constexpr std::array<const char*, kPlots> kPlotNames = {"hist", "heatmap", "profile", "noise",
                                                        "errors"};

// Watches the plots (replot start/end, paint events) and the job runner (result deliveries).
class Probe : public QObject {
public:
    explicit Probe(MainWindow& w) : w_(w) {
        plots_ = {w.histogramView()->plot(), w.matrixView()->heatmapPlot(),
                  w.matrixView()->profilePlot(), w.matrixView()->noisePlot(),
                  w.errorsView()->histogramPlot()};
        for (int p = 0; p < kPlots; ++p) {
            QCustomPlot* plot = plots_[static_cast<std::size_t>(p)];
            plot->installEventFilter(this);
            QObject::connect(plot, &QCustomPlot::beforeReplot, this, [this, p] {
                replotStart_[static_cast<std::size_t>(p)] = Clock::now();
            });
            QObject::connect(plot, &QCustomPlot::afterReplot, this, [this, p] {
                const auto k = static_cast<std::size_t>(p);
                lastReplotEnd_[k] = Clock::now();
                if (recording_) {
                    ++replots_[k];
                    replotMs_[k] += msBetween(replotStart_[k], lastReplotEnd_[k]);
                }
            });
        }
        w.engine()->runner()->installEventFilter(this);
        QObject::connect(&w, &MainWindow::releaseShown, this, [this] {
            shown_ = Clock::now();
            deliverAtShown_ = lastDeliver_;
            ++shownCount_;
            if (loop_) {
                loop_->quit();
            }
        });
        QObject::connect(w.engine(), &dpx::ui::ExplorerEngine::datasetReady, this,
                         [this](const dpx::ui::DatasetResult&) { ++delivered_; });
        QObject::connect(w.engine(), &dpx::ui::ExplorerEngine::releaseReady, this,
                         [this](const dpx::ui::ReleaseResult&) { ++delivered_; });
        QObject::connect(w.engine(), &dpx::ui::ExplorerEngine::monteCarloReady, this,
                         [this](const dpx::ui::MonteCarloErrors&, bool) {
                             ++delivered_;
                             ++mcCount_;
                             if (recording_) {
                                 mcInWindow_ = true;
                             }
                         });
    }

    QCustomPlot* plot(int p) const { return plots_[static_cast<std::size_t>(p)]; }

    // Jobs whose worker has not finished yet: started, minus those whose result was delivered
    // (one engine signal each), minus those dropped as stale or cancelled once their worker
    // returned. A cancelled job keeps its pool thread until its worker notices the stop.
    long long jobsInFlight() const {
        const auto* runner = w_.engine()->runner();
        return static_cast<long long>(runner->started()) -
               static_cast<long long>(runner->dropped()) - delivered_;
    }

    // Starts recording replots for one change.
    void begin() {
        replots_.fill(0);
        paints_.fill(0);
        replotMs_.fill(0);
        paintMs_.fill(0);
        mcInWindow_ = false;
        recording_ = true;
    }
    void end() { recording_ = false; }

    // Runs the event loop until releaseShown is emitted (true) or `timeoutMs` passes.
    bool waitShown(int startCount, int timeoutMs) {
        if (shownCount_ > startCount) {
            return true;
        }
        QEventLoop loop;
        QTimer timer;
        timer.setSingleShot(true);
        QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
        timer.start(timeoutMs);
        loop_ = &loop;
        while (shownCount_ <= startCount && timer.isActive()) {
            loop.exec();
        }
        loop_ = nullptr;
        return shownCount_ > startCount;
    }

    // Delivers the pending redraw of this change: the plots' queued replots, then the window's
    // UpdateRequest (paint of every dirty widget, backing-store flush). Returns false if it had to
    // fall back to running the event loop.
    bool flushRedraw(int timeoutMs) {
        for (int round = 0; round < 3; ++round) {
            for (QCustomPlot* p : plots_) {
                QCoreApplication::sendPostedEvents(p, QEvent::MetaCall);
            }
            QCoreApplication::sendPostedEvents(&w_, QEvent::UpdateRequest);
            if (visiblePlotsPainted()) {
                return true;
            }
        }
        QElapsedTimer t;
        t.start();
        while (!visiblePlotsPainted() && t.elapsed() < timeoutMs) {
            QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents, 5);
        }
        if (!visiblePlotsPainted() && ++fallbackReports_ <= 3) {
            for (std::size_t k = 0; k < plots_.size(); ++k) {
                std::fprintf(stderr, "  plot %s visible=%d size=%dx%d not painted=%d\n",
                             kPlotNames[k], plots_[k]->isVisible() ? 1 : 0, plots_[k]->width(),
                             plots_[k]->height(), lastPaint_[k] < replotStart_[k] ? 1 : 0);
            }
        }
        return false;
    }

    // Every visible plot has been painted since its last replot started. (A replot with the
    // default priority may repaint() the plot itself, synchronously, before afterReplot.)
    bool visiblePlotsPainted() const {
        for (std::size_t k = 0; k < plots_.size(); ++k) {
            if (plots_[k]->isVisible() && lastPaint_[k] < replotStart_[k]) {
                return false;
            }
        }
        return true;
    }

    // The end of the last paint of a visible plot (the time point `from` if none was painted).
    Clock::time_point lastVisiblePaint(Clock::time_point from) const {
        Clock::time_point last = from;
        for (std::size_t k = 0; k < plots_.size(); ++k) {
            if (plots_[k]->isVisible() && paints_[k] > 0) {
                last = std::max(last, lastPaint_[k]);
            }
        }
        return last;
    }
    Clock::time_point shown() const { return shown_; }
    Clock::time_point deliver() const { return deliverAtShown_; }
    int shownCount() const { return shownCount_; }
    int mcCount() const { return mcCount_; }
    bool mcInWindow() const { return mcInWindow_; }
    const std::array<int, kPlots>& replots() const { return replots_; }
    const std::array<double, kPlots>& replotMs() const { return replotMs_; }
    const std::array<int, kPlots>& paints() const { return paints_; }
    const std::array<double, kPlots>& paintMs() const { return paintMs_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::MetaCall && watched == w_.engine()->runner()) {
            lastDeliver_ = Clock::now();
        } else if (event->type() == QEvent::Paint && !inPaint_) {
            for (std::size_t k = 0; k < plots_.size(); ++k) {
                if (watched == plots_[k]) {
                    // Deliver the paint event here to time it (QObject::event is public), and
                    // consume it.
                    const auto start = Clock::now();
                    inPaint_ = true;
                    static_cast<QObject*>(plots_[k])->event(event);
                    inPaint_ = false;
                    lastPaint_[k] = Clock::now();
                    if (recording_) {
                        ++paints_[k];
                        paintMs_[k] += msBetween(start, lastPaint_[k]);
                    }
                    return true;
                }
            }
        }
        return QObject::eventFilter(watched, event);
    }

private:
    MainWindow& w_;
    std::array<QCustomPlot*, kPlots> plots_{};
    std::array<Clock::time_point, kPlots> replotStart_{}, lastReplotEnd_{}, lastPaint_{};
    std::array<int, kPlots> replots_{}, paints_{};
    std::array<double, kPlots> replotMs_{};
    Clock::time_point lastDeliver_{}, deliverAtShown_{}, shown_{};
    int shownCount_ = 0;
    int mcCount_ = 0;
    long long delivered_ = 0;
    std::array<double, kPlots> paintMs_{};
    int fallbackReports_ = 0;
    bool recording_ = false;
    bool inPaint_ = false;
    bool mcInWindow_ = false;
    QEventLoop* loop_ = nullptr;
};

// Runs the event loop for `ms` milliseconds.
void spin(int ms) {
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

// Waits until no job runs; past `settleSeconds` cancels the jobs and waits for their workers
// (their stale results reach JobRunner::finish, counted in dropped()).
void settle(MainWindow& w, double settleSeconds) {
    auto* runner = w.engine()->runner();
    if (runner->waitForIdle(static_cast<int>(settleSeconds * 1000))) {
        return;
    }
    const std::uint64_t dropped = runner->dropped();
    runner->cancelAll();
    QElapsedTimer t;
    t.start();
    while (runner->dropped() == dropped && t.elapsed() < 120000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    QCoreApplication::processEvents();
}

// CPU time of the calling thread (the GUI thread's own work, whatever else the machine runs).
double threadCpuMs() {
    return dpx::bench::threadCpuSeconds() * 1e3;
}

// Records the end of the last paint of one widget.
class PaintClock : public QObject {
public:
    explicit PaintClock(QWidget* w) : w_(w) { w->installEventFilter(this); }
    Clock::time_point last{};
    double paintMs = 0;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == w_ && event->type() == QEvent::Paint && !inPaint_) {
            const auto start = Clock::now();
            inPaint_ = true;
            static_cast<QObject*>(w_)->event(event);
            inPaint_ = false;
            last = Clock::now();
            paintMs = msBetween(start, last);
            return true;
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QWidget* w_;
    bool inPaint_ = false;
};

// The bench's 256 × 256 tables (see the header).
dpx::ContingencyTable benchTable(const std::string& name, std::uint64_t n) {
    std::vector<dpx::Attribute> attrs;
    for (const char* a : {"row", "column"}) {
        dpx::Attribute at;
        at.name = a;
        for (std::uint64_t i = 0; i < n; ++i) {
            at.labels.push_back(std::to_string(i));
        }
        attrs.push_back(at);
    }
    std::mt19937_64 rng(19);
    std::vector<std::int64_t> counts(n * n, 0);
    for (std::uint64_t i = 0; i < n; ++i) {
        for (std::uint64_t j = 0; j < n; ++j) {
            const auto c = static_cast<std::size_t>(i * n + j);
            if (name == "skewed-256") {
                counts[c] = static_cast<std::int64_t>(
                    std::floor(5000.0 * std::exp(-static_cast<double>(i + j) / 24.0)) + 1);
            } else if (rng() % 20 == 0) {
                counts[c] = static_cast<std::int64_t>(1 + rng() % 50);
            }
        }
    }
    return *dpx::ContingencyTable::dense(std::move(attrs), std::move(counts));
}

struct Scenario {
    std::string name;
    qint64 rows = 0;
    int bins = 0;
    dpx::ui::MechanismChoice mechanism = dpx::ui::MechanismChoice::Laplace;
    int countN = 0;
};

struct Sample {
    double total = 0, visible = 0, apply = 0, worker = 0, gui = 0, paint = 0, inFlight = 0;
    std::array<int, kPlots> paints{};
    std::array<int, kPlots> replots{};
    std::array<double, kPlots> replotMs{}, paintMs{};
    bool fallback = false;
    bool mc = false;
};

}  // namespace

int main(int argc, char** argv) {
    const Options o(argc, argv,
                    {{"scenarios", "count-256,laplace-256,count-4096,laplace-4096"},
                     {"tabs", "histogram,matrix,errors"},
                     {"modes", "background,quiet"},
                     {"changes", "40"},
                     {"warmup", "3"},
                     {"switches", "5"},
                     {"epsilons", "0.05,0.5,0.1,2,0.2,5,1,0.3"},
                     {"rows-256", "5000"},
                     {"rows-4096", "1e6"},
                     {"count-n-256", "100"},
                     {"count-n-4096", "0"},
                     {"gap-ms", "150"},
                     {"quiet-long-trials", "100"},
                     {"settle-s", "30"},
                     {"timeout-s", "120"},
                     {"table-scenarios", "skewed-256,sparse-256"},
                     {"width", "1600"},
                     {"height", "1000"}});
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    int qtArgc = 1;
    QApplication app(qtArgc, argv);
    QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's own
    QApplication::setApplicationName(QStringLiteral("dpx-bench-gui-redraw"));
    QApplication::setOrganizationName(QStringLiteral("dpx-bench"));
    printHeader("GUI redraw latency: ε change → all visible plots redrawn (MainWindow, offscreen)");
    std::printf("# platform %s, Qt %s, load average at start %s\n",
                qPrintable(QGuiApplication::platformName()), qVersion(), loadAverage().c_str());

    std::vector<double> epsilons;
    for (const std::string& e : o.list("epsilons")) {
        epsilons.push_back(std::stod(e));
    }
    const int changes = static_cast<int>(o.integer("changes"));
    const int warmup = static_cast<int>(o.integer("warmup"));
    const int switches = static_cast<int>(o.integer("switches"));
    const int gapMs = static_cast<int>(o.integer("gap-ms"));
    const int timeoutMs = static_cast<int>(o.real("timeout-s") * 1000);
    const double settleSeconds = o.real("settle-s");

    MainWindow w;
    w.resize(static_cast<int>(o.integer("width")), static_cast<int>(o.integer("height")));
    w.show();
    Probe probe(w);
    QCoreApplication::processEvents();
    settle(w, settleSeconds);
    // Show every tab once so that every page has its real size (hidden pages keep theirs).
    for (const char* tab : {"matrix", "errors", "histogram"}) {
        w.showTab(QString::fromLatin1(tab));
        spin(50);
    }

    std::vector<Scenario> scenarios;
    for (const std::string& name : o.list("scenarios")) {
        Scenario s;
        s.name = name;
        const bool big = name.find("4096") != std::string::npos;
        s.bins = big ? 4096 : 256;
        s.rows = o.integer(big ? "rows-4096" : "rows-256");
        if (name.rfind("count-", 0) == 0) {
            s.mechanism = dpx::ui::MechanismChoice::CountGeometric;
            s.countN = static_cast<int>(o.integer(big ? "count-n-4096" : "count-n-256"));
        } else if (name.rfind("laplace-", 0) == 0) {
            s.mechanism = dpx::ui::MechanismChoice::Laplace;
        }
        if (name != "count-256" && name != "laplace-256" && name != "count-4096" &&
            name != "laplace-4096") {
            std::fprintf(stderr, "unknown scenario '%s'\n", name.c_str());
            return 2;
        }
        scenarios.push_back(s);
    }

    int failures = 0;
    for (const Scenario& sc : scenarios) {
        w.engine()->setLongTrials(dpx::ui::ExplorerEngine::kLongTrials);
        ExplorerState s = w.document()->state();
        s.data.exampleId = QStringLiteral("telemetry");
        s.data.exampleRows = sc.rows;
        s.data.csvPath.clear();
        s.data.column.clear();
        s.data.binning.kind = dpx::ui::BinningChoice::EqualWidth;
        s.data.binning.bins = sc.bins;
        s.data.binning.rangeLo = 0;
        s.data.binning.rangeHi = 24;
        s.mechanism.kind = sc.mechanism;
        s.mechanism.countN = sc.countN;
        s.mechanism.epsilon = 1;
        const int before = probe.shownCount();
        if (auto st = w.document()->apply(s, QStringLiteral("bench")); !st) {
            std::printf("RESULT case=gui-redraw scenario=%s error=\"%s\"\n", sc.name.c_str(),
                        st.error().message.c_str());
            ++failures;
            continue;
        }
        if (!probe.waitShown(before, timeoutMs)) {
            std::printf("RESULT case=gui-redraw scenario=%s error=\"no release within %d s\"\n",
                        sc.name.c_str(), timeoutMs / 1000);
            ++failures;
            continue;
        }
        const dpx::ui::ReleaseResult& r = w.engine()->release();
        if (!r.error.isEmpty()) {
            // E.g. a count mechanism refused because a bin holds more than 2000 records.
            std::printf("RESULT case=gui-redraw scenario=%s refused=\"%s\"\n", sc.name.c_str(),
                        qPrintable(r.error));
            continue;
        }
        double largest = 0;
        for (double c : r.truth) {
            largest = std::max(largest, c);
        }
        int exactCells = 0;
        for (const auto& row : r.expected) {
            for (const auto& c : row) {
                exactCells += c.available ? 1 : 0;
            }
        }
        const int n = r.matrix ? static_cast<int>(r.matrix->people()) : 0;
        std::printf(
            "# scenario %s: %lld rows, %zu bins, largest bin %g, %s, exact expected "
            "cells %d of %zu\n",
            sc.name.c_str(), static_cast<long long>(w.engine()->dataset().rows), r.truth.size(),
            largest, qPrintable(r.mechanismTitle), exactCells,
            r.expected.size() * (r.expected.empty() ? 0 : r.expected[0].size()));
        std::fflush(stdout);

        for (const std::string& mode : o.list("modes")) {
            const bool quiet = mode == "quiet";
            if (!quiet && mode != "background") {
                std::fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
                return 2;
            }
            w.engine()->setLongTrials(
                quiet ? static_cast<std::uint64_t>(o.integer("quiet-long-trials"))
                      : dpx::ui::ExplorerEngine::kLongTrials);
            for (const std::string& tab : o.list("tabs")) {
                if (!w.showTab(QString::fromStdString(tab))) {
                    std::fprintf(stderr, "unknown tab '%s'\n", tab.c_str());
                    return 2;
                }
                if (quiet) {
                    settle(w, settleSeconds);
                } else {
                    spin(gapMs);
                }
                std::vector<Sample> samples;
                int fallbacks = 0, mcInWindow = 0, timeouts = 0, mcBusyAtChange = 0;
                std::size_t next = 0;
                const std::string loadStart = loadAverage();
                for (int k = 0; k < warmup + changes; ++k) {
                    double e = epsilons[next++ % epsilons.size()];
                    if (e == w.document()->state().mechanism.epsilon) {
                        e = epsilons[next++ % epsilons.size()];
                    }
                    const int shownBefore = probe.shownCount();
                    const bool mcBusy = w.engine()->runner()->isRunning(QStringLiteral("mc"));
                    const auto inFlight = static_cast<double>(probe.jobsInFlight());
                    probe.begin();
                    const auto t0 = Clock::now();
                    if (auto st = w.document()->setEpsilon(e); !st) {
                        std::fprintf(stderr, "setEpsilon(%g) refused: %s\n", e,
                                     st.error().message.c_str());
                        return 1;
                    }
                    const auto applied = Clock::now();
                    if (!probe.waitShown(shownBefore, timeoutMs)) {
                        probe.end();
                        ++timeouts;
                        continue;
                    }
                    const bool direct = probe.flushRedraw(timeoutMs);
                    const auto t1 = Clock::now();
                    probe.end();
                    if (k >= warmup) {
                        Sample x;
                        x.total = msBetween(t0, t1);
                        x.visible = msBetween(t0, probe.lastVisiblePaint(t0));
                        x.paints = probe.paints();
                        x.inFlight = inFlight;
                        x.apply = msBetween(t0, applied);
                        x.worker = msBetween(applied, probe.deliver());
                        x.gui = msBetween(probe.deliver(), probe.shown());
                        x.paint = msBetween(probe.shown(), t1);
                        x.replots = probe.replots();
                        x.replotMs = probe.replotMs();
                        x.paintMs = probe.paintMs();
                        x.fallback = !direct;
                        x.mc = probe.mcInWindow();
                        mcBusyAtChange += mcBusy ? 1 : 0;
                        fallbacks += direct ? 0 : 1;
                        mcInWindow += x.mc ? 1 : 0;
                        samples.push_back(x);
                    }
                    if (quiet) {
                        settle(w, settleSeconds);
                    } else {
                        spin(gapMs);
                    }
                }
                auto column = [&](auto get) {
                    std::vector<double> v;
                    for (const Sample& x : samples) {
                        v.push_back(get(x));
                    }
                    return v;
                };
                const auto total = column([](const Sample& x) { return x.total; });
                std::printf(
                    "RESULT case=gui-redraw scenario=%s tab=%s mc=%s median_ms=%.3f "
                    "p90_ms=%.3f changes=%zu min_ms=%.3f max_ms=%.3f bins=%zu n=%d "
                    "visible_ms=%.3f apply_ms=%.3f worker_ms=%.3f worker_p90_ms=%.3f "
                    "gui_ms=%.3f paint_ms=%.3f",
                    sc.name.c_str(), tab.c_str(), mode.c_str(), median(total), quantile(total, 0.9),
                    samples.size(), quantile(total, 0), quantile(total, 1), r.truth.size(), n,
                    median(column([](const Sample& x) { return x.visible; })),
                    median(column([](const Sample& x) { return x.apply; })),
                    median(column([](const Sample& x) { return x.worker; })),
                    quantile(column([](const Sample& x) { return x.worker; }), 0.9),
                    median(column([](const Sample& x) { return x.gui; })),
                    median(column([](const Sample& x) { return x.paint; })));
                for (int p = 0; p < kPlots; ++p) {
                    const auto q = static_cast<std::size_t>(p);
                    const auto count = column([q](const Sample& x) { return x.replots[q]; });
                    double mean = 0;
                    for (double c : count) {
                        mean += c / static_cast<double>(std::max<std::size_t>(count.size(), 1));
                    }
                    std::printf(" replots_%s=%.2f replot_ms_%s=%.3f paint_ms_%s=%.3f",
                                kPlotNames[q], mean, kPlotNames[q],
                                median(column([q](const Sample& x) { return x.replotMs[q]; })),
                                kPlotNames[q],
                                median(column([q](const Sample& x) { return x.paintMs[q]; })));
                }
                // Mean paints per change of the plots on the current tab.
                std::printf(" paints_visible=");
                const char* sep = "";
                for (int p = 0; p < kPlots; ++p) {
                    const auto q = static_cast<std::size_t>(p);
                    if (probe.plot(p)->isVisible()) {
                        double mean = 0;
                        for (const Sample& x : samples) {
                            mean += x.paints[q] / static_cast<double>(samples.size());
                        }
                        std::printf("%s%s:%.2f", sep, kPlotNames[q], mean);
                        sep = ",";
                    }
                }
                double inFlightMean = 0;
                for (const Sample& x : samples) {
                    inFlightMean += x.inFlight / static_cast<double>(samples.size());
                }
                std::printf(
                    " fallback=%d mc_busy_at_change=%d jobs_in_flight_at_change=%.2f "
                    "mc_in_window=%d timeouts=%d load=%s,%s\n",
                    fallbacks, mcBusyAtChange, inFlightMean, mcInWindow, timeouts,
                    loadStart.c_str(), loadAverage().c_str());
                std::fflush(stdout);
                failures += timeouts > 0 ? 1 : 0;

                // The cost moved to the tab switch: after an ε change on `tab`, the other tabs'
                // plots are stale and replot when shown. Time showTab(other) → its visible plots
                // painted, then go back.
                for (const std::string& other :
                     {std::string("histogram"), std::string("matrix"), std::string("errors")}) {
                    if (other == tab || switches <= 0) {
                        continue;
                    }
                    std::vector<double> sw;
                    int switchFallbacks = 0;
                    for (int rep = 0; rep < switches; ++rep) {
                        double e = epsilons[next++ % epsilons.size()];
                        if (e == w.document()->state().mechanism.epsilon) {
                            e = epsilons[next++ % epsilons.size()];
                        }
                        const int shownBefore = probe.shownCount();
                        (void)w.document()->setEpsilon(e);
                        if (!probe.waitShown(shownBefore, timeoutMs)) {
                            continue;
                        }
                        (void)probe.flushRedraw(timeoutMs);
                        if (quiet) {
                            settle(w, settleSeconds);
                        } else {
                            spin(gapMs);
                        }
                        probe.begin();
                        const auto t0 = Clock::now();
                        w.showTab(QString::fromStdString(other));
                        const bool direct = probe.flushRedraw(timeoutMs);
                        const auto t1 = Clock::now();
                        probe.end();
                        switchFallbacks += direct ? 0 : 1;
                        sw.push_back(msBetween(t0, t1));
                        w.showTab(QString::fromStdString(tab));
                        (void)probe.flushRedraw(timeoutMs);
                    }
                    std::printf(
                        "RESULT case=gui-tab-switch scenario=%s from=%s to=%s mc=%s "
                        "median_ms=%.3f max_ms=%.3f switches=%zu fallback=%d\n",
                        sc.name.c_str(), tab.c_str(), other.c_str(), mode.c_str(), median(sw),
                        sw.empty() ? 0.0 : quantile(sw, 1), sw.size(), switchFallbacks);
                    std::fflush(stdout);
                }
            }
        }
    }
    // The Table tab.
    dpx::ui::TableTab* table = w.tableView();
    if (!o.list("table-scenarios").empty()) {
        w.engine()->runner()->cancelAll();
        w.engine()->runner()->waitForIdle(2000);
        w.showTab(QStringLiteral("table"));
        spin(50);
    }
    PaintClock tablePaint(table->heatmapPlot());
    for (const std::string& name : o.list("table-scenarios")) {
        if (name != "skewed-256" && name != "sparse-256") {
            std::fprintf(stderr, "unknown table scenario '%s'\n", name.c_str());
            return 2;
        }
        const dpx::ContingencyTable truth = benchTable(name, 256);
        std::mt19937_64 rng(7);
        std::exponential_distribution<double> expo(1.0);
        std::size_t next = 0;
        auto release = [&](double eps) {
            dpx::ui::TableViewInputs in;
            in.truth = truth;
            const double b = 1 / eps;
            for (std::int64_t c : truth.denseCounts()) {
                const double z = static_cast<double>(c) + b * (expo(rng) - expo(rng));
                in.noisy.push_back(z);
                in.estimate.push_back(std::max(0.0, z));
            }
            in.cellNoise = dpx::NoiseDistribution::laplace(b);
            in.epsilon = eps;
            in.mechanismName = QStringLiteral("Laplace");
            return in;
        };
        table->setInputs(release(1));
        spin(50);
        for (const bool box : {false, true}) {
            if (box) {
                table->selectBox(dpx::BinRange{32, 95}, dpx::BinRange{64, 127});
            } else {
                table->clearSelection();
            }
            spin(20);
            std::vector<double> total, set, paint, readout, cpu;
            int fallbacks = 0;
            for (int k = 0; k < warmup + changes; ++k) {
                dpx::ui::TableViewInputs in = release(epsilons[next++ % epsilons.size()]);
                const double cpu0 = threadCpuMs();
                const auto t0 = Clock::now();
                table->setInputs(std::move(in));
                const auto t1 = Clock::now();
                QCoreApplication::sendPostedEvents(table->heatmapPlot(), QEvent::MetaCall);
                QCoreApplication::sendPostedEvents(&w, QEvent::UpdateRequest);
                if (tablePaint.last < t0) {
                    ++fallbacks;
                    QElapsedTimer t;
                    t.start();
                    while (tablePaint.last < t0 && t.elapsed() < timeoutMs) {
                        QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents, 5);
                    }
                }
                const auto t2 = Clock::now();
                const double cpu2 = threadCpuMs();
                // The box's readout (answers, exact errors) arrives from a worker afterwards.
                QElapsedTimer waited;
                waited.start();
                while (table->readoutBusy() && waited.elapsed() < timeoutMs) {
                    QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents, 1);
                }
                const auto t3 = Clock::now();
                if (k >= warmup) {
                    total.push_back(msBetween(t0, t2));
                    set.push_back(msBetween(t0, t1));
                    paint.push_back(tablePaint.paintMs);
                    readout.push_back(msBetween(t0, t3));
                    cpu.push_back(cpu2 - cpu0);
                }
                spin(5);
            }
            std::printf(
                "RESULT case=table-redraw scenario=%s box=%s median_ms=%.3f p90_ms=%.3f "
                "max_ms=%.3f changes=%zu set_ms=%.3f paint_ms=%.3f gui_cpu_ms=%.3f readout_ms=%.3f "
                "fallback=%d load=%s\n",
                name.c_str(), box ? "64x64" : "none", median(total), quantile(total, 0.9),
                quantile(total, 1), total.size(), median(set), median(paint), median(cpu),
                box ? median(readout) : 0.0, fallbacks, loadAverage().c_str());
            std::fflush(stdout);
            failures += table->readout().has_value() == box ? 0 : 1;
        }
    }
    w.engine()->runner()->cancelAll();
    w.engine()->runner()->waitForIdle(2000);
    std::printf("# load average at end %s\n", loadAverage().c_str());
    return failures == 0 ? 0 : 1;
}
