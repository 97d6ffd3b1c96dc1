// dpx audit: the statistical DP audit of core/audit/dp_audit.h run on the release mechanisms (exact
// discrete Laplace, discrete Gaussian, GM matrix sampler) and the continuous Laplace, or on one
// deliberately broken mechanism (--broken), JSON on `out` (issue #8).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace dpx::cli {

// argv[1] == "audit". Exit codes: 0 every audited correct mechanism passed (with --broken: the
// violation was found), 1 a correct mechanism was flagged or the broken one was not caught (the
// JSON is still written), 2 invalid arguments.
int cmdAudit(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace dpx::cli
