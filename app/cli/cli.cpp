#include "app/cli/cli.h"

#include <ostream>
#include <stdexcept>

#include "app/cli/commands/audit.h"
#include "app/cli/commands/bench.h"
#include "app/cli/commands/budget.h"
#include "app/cli/commands/estimate.h"
#include "app/cli/commands/histogram.h"
#include "app/cli/commands/interval.h"
#include "app/cli/commands/kde.h"
#include "app/cli/commands/ldp.h"
#include "app/cli/commands/ldp_experiment.h"
#include "app/cli/commands/ldp_mean.h"
#include "app/cli/commands/matrix.h"
#include "app/cli/commands/mean.h"
#include "app/cli/commands/query.h"
#include "app/cli/commands/rdp.h"
#include "app/cli/commands/release.h"
#include "app/cli/commands/risk.h"
#include "app/cli/commands/select.h"
#include "app/cli/commands/sparse.h"
#include "app/cli/commands/strategy.h"
#include "app/cli/commands/tradeoff.h"
#include "app/cli/commands/workload.h"
#include "app/cli/output.h"
#include "app/version.h"

namespace dpx::cli {

namespace {

// The subcommands in the order --help lists them. Each synopsis starts with a newline, so that
// its lines stand in the source as they are printed.
const std::vector<Command> kCommands{
    {"estimate", cmdEstimate, R"(
  dpx estimate --counts LIST --estimator identity|clamp|resize|noisefirst
               [--epsilon E] [--mechanism laplace|geometric|gaussian] [--sensitivity S]
               [--delta D] [--calibration classic|hall|analytic])"},
    {"expected-error", cmdExpectedError, R"(
  dpx expected-error --counts LIST --mechanism laplace|geometric|gaussian --epsilon E
               --estimator NAME --metric sse|l1|linf|w1 [--scale counts|frequencies]
               [--method exact|monte-carlo] [--trials N] [--seed S] [--threads T]
               [--delta D] [--calibration classic|hall|analytic]
               [--neighbouring add-remove|replace] [--max-bins M] [--max-per-bin C]
               [--edges e0,e1,...])"},
    {"sigma", cmdSigma, R"(
  dpx sigma --epsilon E --delta D --sensitivity S [--calibration classic|hall|analytic])"},
    {"matrix", cmdMatrix, R"(
  dpx matrix --mechanism geometric|explicit-fair|uniform|randomized-response|laplace|gaussian|
                         grr|optimal
             --n N --epsilon E [--k K (grr)] [--delta D (gaussian)] [--format json|csv]
             [--sample C1,C2,... [--seed S]: one output per group count]
             optimal: [--objective l0|l1|l2|l0d:D|custom:COSTS.csv|minimax-...]
                      [--constraints rh,rm,ch,cm,f,wh,s]
                      [--weights uniform|binomial:P|w0,w1,...] [--time-limit SECONDS]
                      [--min-diagonal T (every count reported correctly w.p. ≥ T)]
                      [--sweep E1,E2,... instead of --epsilon: warm-started ε sweep]
  dpx matrix --check FILE.csv|FILE.json --epsilon E)"},
    {"histogram", cmdHistogram, R"(
  dpx histogram --data FILE.csv --column C [--column C2 ...] --bins SPEC [--bins SPEC2 ...]
               SPEC: LO:HI:COUNT | edges:E1,E2,... | integers:LO:HI[:W] | categories[:A,B,...]
                     [;closed] [;clamp] [;other] [;error]
               [--delimiter ,|;|tab|'|'] [--no-header] [--on-error stop|skip]
               [--type C=integer|float|categorical|date] [--id-column ID --cap K] [--threads T]
               [--max-record-bytes N] [--max-fields N] [--max-file-bytes N]
  dpx histogram --data FILE|URI --joint --column A --bins SPEC --column B --bins SPEC ...
               [--sparse (occupied cells only; automatic beyond 2^24 cells)] [--format json|csv]
               (the joint table of the columns, one --bins per --column, and its summary))"},
    {"release", cmdRelease, R"(
  dpx release (--data FILE|sqlite:PATH|postgresql://... --column C --bins SPEC [--table T]
               [--id-column ID --cap K] | --counts C1,C2,...)
               --mechanism discrete-laplace|discrete-gaussian|geometric-matrix --epsilon E
               [--delta D (discrete-gaussian)] [--n N (geometric-matrix group size)]
               [--neighbouring add-remove|replace] [--postprocess none|clamp|resize|noisefirst]
               --out release.csv --ledger ledger.json [--budget EPS[,DELTA] (new ledger)]
               [--composition basic|zcdp] [--overwrite]
               (exact samplers, OS randomness; writes release.csv + release.json, charges the
               ledger; a refused release exits non-zero and writes nothing; the budget is
               charged before the files appear, and a later run resolves a release that was
               interrupted)
  dpx release (--data FILE|URI --joint --column A --bins SPEC --column B --bins SPEC ...
               | --counts-file PATH [--counts-layout L]) ... (a table of at most 100000 cells;
               the CSV has one column per attribute)
  dpx release ... [--plan-on SPEC [--population N] (what ε was chosen on, as for dpx
               tradeoff; recorded as "epsilon_chosen_on")]
  dpx release ... [--confidence L (in (0, 1), default 0.95)]
               (the CSV's lower/upper columns and the JSON's "intervals" cover each count
               before noise with probability >= L, exact for the noise law; not stated after
               resize or noisefirst)
  dpx release ... [--sample-of N [--design-effect D (1)]]
               (the data are a sample of a population of N, design effect D as declared for a
               weighted survey, Kish 1965: per bin the population estimate and the sampling,
               DP-noise and combined half-widths, Cochran 1977, from the published values only;
               none or clamp, discrete-laplace or discrete-gaussian)
  dpx release ... --postprocess resize|noisefirst --post-intervals
               (states them after resize or noisefirst too: around the noisy count before it,
               widened to hold the published value; the bounds reveal the noisy counts)
  dpx release ... [--report report.pdf|report.html]
               (the decision report, written after the release is charged and published:
               table, mechanism, intervals, risk, alternatives, budget, samplers, SHA-256s)
  dpx release ... --mechanism discrete-laplace --strategy WORKLOAD [--template auto|pidentity|
               marginals|union] [--p P[,P...]] [--restarts R (3)] [--seed S (0)] [--ftol F]
               (the matrix mechanism with a strategy designed for WORKLOAD by HDMM, McKenna
               et al. 2018, from the declared bins alone, rounded to integers K: K·x measured
               with discrete Laplace noise on K's sensitivity, the cells inferred by least
               squares; each cell's own interval; the JSON lists K and the measurements;
               an OPT_M strategy without the full table, e.g. for --strategy marginals:2,
               publishes the workload's marginals, each with its own interval)
  dpx release ... --budget EPS,DELTA --composition pld [--pld-interval H (1e-4)]
               (a new ledger composed by the privacy loss distribution, Koskela et al.
               2020, pessimistic grid of interval H, at the total DELTA; records each
               release's noise so that every run recomputes the same epsilon))"},
    {"report", cmdReport, R"(
  dpx report --release release.json [--csv release.csv] [--ledger ledger.json]
             --out report.pdf|report.html [--overwrite]
             (the decision report of a release already on disk, rebuilt from its files and
             marked so: the CSV must be the metadata's, and with the ledger its entry must
             record the files' SHA-256; the budget before/after is the ledger's))"},
    {"ledger", cmdLedger, R"(
  dpx ledger --ledger ledger.json
               (a ledger's state as JSON; completes or marks "charged, not published" the
               releases an interrupted run left pending, removes its stale temporary files)
               --data also takes sqlite:PATH or postgresql://user@host:port/db, with --table T)"},
    {"tradeoff", cmdTradeoff, R"(
  dpx tradeoff (--counts LIST | --data FILE --column C --bins SPEC [--table T])
               --configs MECH:EST,... (MECH laplace|geometric|gaussian|gm|em|optimal[-OBJ],
                                       or local rr|grr|oue|sue|olh|hrr|dbitflipD,
                                       or a workload algorithm algo:ID[(NAME=VALUE,...)],
                                       e.g. algo:dawa, algo:mwem(rounds=20) — Hay et al. 2016)
               --metric sse|l1|linf|w1 [--scale counts|frequencies] [--n N (gm, em, optimal)]
               --epsilons LO:HI:COUNT (log-spaced) | E1,E2,... [--delta D] [--calibration C]
               [--trials N] [--algorithm-trials N (runs per algo: point, 100)] [--seed S]
               [--threads T] [--frontier]
               [--plan-on confidential|uniform|normal:MEAN,SD[%]|weights:W1,...|shape:FILE|
                release:FILE --population N (plan on a public proxy of declared size N)]
               or --target VALUE | within:K:Q [--range LO:HI]: the smallest ε meeting it)"},
    {"risk", cmdRisk, R"(
  dpx risk --epsilon E [--delta D (default 0: pure DP)] [--prior P (default 0.5)]
           [--group K] [--epsilons LO:HI:COUNT (log-spaced)] [--points N] [--slack T]
           [--mu M (Gaussian trade-off curve, μ = Δ2/σ)])"},
    {"budget", cmdBudget, R"(
  dpx budget (--epsilon E [--delta D] [--composition basic|zcdp|pld] | --ledger FILE)
             --stat LABEL:BINS[:laplace|geometric|gaussian[:WEIGHT]] [--stat ...]
             [--hold-epsilon LABEL=E] [--hold-accuracy LABEL=A (±A per bin, 95%)] [--records N]
             [--sample-rate LABEL=Q (Poisson sampling rate in (0, 1]; basic and pld calibrate
              with its amplification, Li, Qardaji & Su 2012 / Zhu, Dong & Wang 2022)]
             [--accountant basic|zcdp|renyi|pld (the plan's ε at δ and δ at ε; renyi: Mironov
              2017, pld: Koskela et al. 2020)] [--pld-interval H (1e-4; pld only)]
             pld: the whole plan composed by the PLD accountant meets the total (one common
             noise scale searched, never overshooting); --ledger: the plan starts from what the
             ledger has spent, its total and composition are the ledger's)"},
    {"ldp", cmdLdp, R"(
  dpx ldp --protocol rr|grr|oue|sue|olh|hrr|dbitflip[:d]|hh:B[:consistent]|haar --epsilon E
          (--shape normal|uniform|constant --domain D --users N | --counts LIST [--users N]
           | --data FILE --column C --bins SPEC [--table T] [--users N])
          [--oracle grr|oue|sue|olh|hrr|dbitflip[:d] (hh:B, default oue)]
          [--queries ranges|prefixes [--range-samples K]] [--postprocess none|clamp|simplex]
          [--trials T (10)] [--seed S] [--simulator aggregate|per-user] [--threads T]
  dpx ldp --protocol inpht:K|onehot:K[:ORACLE] --attributes d --epsilon E
          (--counts C0,...,C(2^d−1) [--users N] | --shape uniform|skewed --users N)
          [--postprocess none|simplex] [--trials T] [--seed S] [--simulator ...] [--threads T])"},
    {"ldp-experiment", cmdLdpExperiment, R"(
  dpx ldp-experiment [--preset telemetry] (the telemetry experiment after Ding, Kulkarni &
             Yekhanin 2017; options override it)
             --protocols rr|grr|oue|sue|olh|hrr|dbitflip[:D],... --shapes normal|uniform|constant,...
             --users LO:HI:COUNT (log-spaced, whole) | N1,N2,... --epsilons LO:HI:COUNT | E1,E2,...
             [--buckets K (32)] [--repetitions R (10)] [--seed S] [--postprocess none|clamp|simplex]
             [--threads T])"},
    {"ldp-mean", cmdLdpMean, R"(
  dpx ldp-mean --epsilon E (--shape normal|uniform|constant --users N [--buckets K] |
               --counts LIST | --data FILE --column C --bins SPEC) [--trials T] [--seed S]
               (1BitMean: every user sends one ε-LDP bit; values at the bins' centres))"},
    {"sparse", cmdSparse, R"(
  dpx sparse (--counts LIST | --example edwards-like|nltcs-like | --data FILE --column C --bins SPEC)
             --epsilon E [--threshold T (default (2/ε)·ln p)] [--trials N (1000; 0: none)]
             [--seed S] [--threads T] [--per-trial yes|no]
  dpx sparse (--counts-file PATH [--counts-layout L] | --data FILE --joint --column A --bins SPEC
             ...) --epsilon E [--threshold T] [--seed S]
             (a table of any domain, up to 2^64 cells: exact expected L1 and a simulated
             release without visiting the empty cells))"},
    {"query", cmdQuery, R"(
  dpx query (--counts-file PATH [--counts-layout L] | --data FILE --joint --column A --bins SPEC
            ...) --box "A=LO..HI,B=BIN,..." (bins by label or #position)
            --mechanism laplace|geometric|gaussian --epsilon E [--delta D] [--level 0.95]
            [--seed S] [--neighbouring add-remove|replace]
            (a box query's true answer, exact expected error and interval, simulated answer))"},
    {"rdp", cmdRdp, R"(
  dpx rdp (--counts LIST | --example ID | --data ...) --epsilon E --gamma G
          [--trials N (1000; 0: none)] [--seed S] [--threads T] [--per-trial yes|no]
          (random DP: a WEAKER guarantee than DP, beside the ε-DP Laplace histogram))"},
    {"select", cmdSelect, R"(
  dpx select (--counts LIST | --example ID | --data ...) --epsilon E [--task mode|quantile]
             [--quantile Q (0.5)] [--neighbouring add-remove|replace] [--monotone yes|no]
             [--path yes|no] [--path-steps N])"},
    {"mean", cmdMean, R"(
  dpx mean --n N --d D --epsilon E --delta D
           [--mechanism gaussian|gaussian-printed|laplace|knorm|all (default all)]
           [--calibration analytic|hall|classic (gaussian)] [--population bias|uniform-prior]
           [--bias B (each coordinate's mean, −1…1; default 0)] [--trials T (1000)] [--seed S])"},
    {"kde", cmdKde, R"(
  dpx kde (--data FILE --column C --bandwidth H --epsilon E --delta D | --example fig32)
          [--grid LO:HI:COUNT (2…2000 points)] [--samples K (3)] [--seed S])"},
    {"workload", cmdWorkload, R"(
  dpx workload (--counts LIST | --data FILE --column C --bins SPEC | --counts-file PATH
               | --data FILE --joint --column A --bins SPEC --column B --bins SPEC ...)
               --algorithm ID --epsilon E [--workload TEXT (range:2000)] [--param NAME=VALUE ...]
               [--scale M (resample M records)] [--domain N | RxC (coarsen)] [--trials T (10)]
               [--seed S] [--data-seed S] [--threads T] [--answers]
               TEXT: identity | total | prefix | allrange | range:COUNT[:seed=S] |
                     marginals:1,2 | rectangles:WxH | boxes:0..3;5..9 (2-D: 0..3x2..5;...)
               (one algorithm of the DPBench family, Hay et al. 2016, on one table: its budget
               split, estimate, answers, realized errors, errors over trials, exact expected
               error for data-independent ones; simulated, not a release))"},
    {"algorithms", cmdAlgorithms, R"(
  dpx algorithms [--id ID] [--dim 1|2]
               (the DPBench algorithms: id, name, citation, dimensions, parameters, defaults))"},
    {"bench", cmdBench, R"(
  dpx bench [--datasets NAME,... (built-in uniform,step,gauss,zipf,sparse or --counts-file names)]
            [--counts-file NAME=PATH.npy ...] [--dim 1|2 (built-ins: 4096 or 256x256)]
            [--n N,... (coarsened domain; 2-D: N means NxN)] [--m M,... (scales: records drawn)]
            [--eps E,...] [--algorithms ID,...] [--workloads identity,prefix,range,... (range)]
            [--trials T (5)] [--seed S] [--data-seed S] [--nq Q (2000)] [--range-seed S (9001)]
            [--threads T (1)]
            (a DPBench study, Hay, Machanavajjhala, Miklau, Chen & Zhang, SIGMOD 2016: one JSON
            line per dataset × n × m × ε × algorithm × workload with the mean scaled L2 error
            ± standard error, L1, Linf, RMSE and the median seconds of one run))"},
    {"strategy", cmdStrategy, R"(
  dpx strategy --domain N | RxCx... --workload TEXT [--template auto|pidentity|marginals|union]
               [--epsilon E (1)] [--p P[,P2]] [--restarts R (3)] [--seed S (0)]
               [--ftol F (1e-4)] [--per-query]
               [--measurement laplace|gaussian (laplace)] [--delta D (1e-6, gaussian)]
               TEXT: identity | total | prefix | allrange | range:COUNT[:seed=S] | boxes:...
                     | rectangles:WxH | marginals:K[,K2] | PART + c*PART ...
               (a workload-optimal strategy, the matrix mechanism with HDMM's templates,
               McKenna et al. 2018 — p-Identity, Kronecker products of them, also over unions of
               Kronecker products, weighted marginals, and one strategy per part of a union of
               workloads stacked (OPT₊) — designed from the workload alone,
               no data, with its exact expected RMSE next to Identity, HB and Privelet;
               designed for the measurement: ‖A‖₁²·trace under Laplace, ‖A‖₂²·trace under
               Gaussian, the analytic Gaussian mechanism of Balle & Wang 2018))"},
    {"audit", cmdAudit, R"(
  dpx audit [--mechanism discrete-laplace|discrete-gaussian|gm|laplace|all (default all)]
            [--epsilon E (1)] [--delta D (1e-5, discrete-gaussian)] [--samples N (10^6 per input)]
            [--seed S] [--broken laplace-half-scale|naive-float-laplace|perturbed-matrix]
            (statistical DP audit; exit 0: correct mechanisms pass / the broken one is caught))"},
    {"interval", cmdInterval, R"(
  dpx interval --mechanism laplace|geometric|gaussian --epsilon E [--delta D] [--sensitivity S]
               [--calibration C] [--confidence L (0.95)] [--bins M (1)] [--cells K]
               [--count C --sample n --population N]
               (issue #22: the half-width h with Pr[|noisy - true| <= h] >= L per bin, for all M
               bins at once (exact max and Bonferroni), for a range of K cells; with a sample of
               n rows from a population of N, the sampling interval of N*C/n (normal with the
               finite-population correction, Cochran 1977), the DP noise's and their sum's)
  dpx interval ... --count C (--weights FILE --weight-column W | --effective-sample M ...)
               (a weighted sample: n replaced by the effective sample size (sum w)^2 / sum w^2,
               Kish 1965; n and N default to the rows and the sum of the weights))"},
};

const char* const kUsageHead = R"(dpx — DP Explorer command-line tool (JSON on stdout)

Usage:)";

const char* const kUsageFoot = R"(
  dpx --help | --version

Every subcommand that takes --counts also takes --counts-file PATH [--counts-layout
auto|long|vector|matrix|npy] (a .npy array or a CSV of counts; a table of several attributes is
taken as its cells in C order where a vector is needed, with a note). See docs/tables.md.

Errors go to stderr as "dpx: error: ..." with exit code 2 (invalid input) or 1 (failure).
See docs/cli.md for every field of the JSON output.
)";

}  // namespace

const std::vector<Command>& commands() {
    return kCommands;
}

const Command* findCommand(std::string_view name) {
    for (const Command& c : kCommands) {
        if (name == c.name) {
            return &c;
        }
    }
    return nullptr;
}

std::string usage() {
    std::string text = kUsageHead;
    for (const Command& c : kCommands) {
        text += c.synopsis;
    }
    return text + kUsageFoot;
}

int run(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    if (argv.size() < 2) {
        err << usage();
        return kInvalid;
    }
    const std::string& cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        out << usage();
        return kOk;
    }
    if (cmd == "--version") {
        out << "dpx " << DPX_VERSION_STRING << '\n';
        return kOk;
    }
    if (argv.size() >= 3 && (argv[2] == "--help" || argv[2] == "-h")) {
        out << usage();
        return kOk;
    }
    const Command* command = findCommand(cmd);
    if (!command) {
        err << "dpx: error: unknown command '" << cmd << "'\n" << usage();
        return kInvalid;
    }
    try {
        return command->run(argv, out, err);
    } catch (const std::exception& e) {
        err << "dpx: internal error: " << e.what() << '\n';
        return kFailure;
    }
}

}  // namespace dpx::cli
