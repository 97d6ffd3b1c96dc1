// The list of algorithms (issue #20). Each algorithm's file defines a function returning its
// singleton; add one line per algorithm here, in the order allAlgorithms() documents.
#include <algorithm>
#include <cctype>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/registry_list.h"

namespace dpx {

const std::vector<const Algorithm*>& allAlgorithms() {
    static const std::vector<const Algorithm*> all = [] {
        std::vector<const Algorithm*> v;
        // Data-independent (helper "workload").
        for (const Algorithm* a : {&identityAlgorithm(), &uniformAlgorithm(), &h2Algorithm(),
                                   &hbAlgorithm(), &priveletAlgorithm(), &hb2dAlgorithm(),
                                   &privelet2dAlgorithm(), &quadTreeAlgorithm()}) {
            v.push_back(a);
        }
        // Data-independent, workload-aware (helper "dd1").
        v.push_back(&greedyHAlgorithm());
        // Data-dependent, 1-D (helper "dd1").
        v.push_back(&dawaAlgorithm());
        v.push_back(&ahpAlgorithm());   // 1-D and 2-D
        v.push_back(&mwemAlgorithm());  // 1-D and 2-D
        // Data-dependent, 2-D (helper "dd2").
        // Helper "dd2": the 1-D ones (DPCube also 2-D), then the 2-D grids.
        v.push_back(&phpAlgorithm());
        v.push_back(&efpaAlgorithm());
        v.push_back(&structureFirstAlgorithm());
        v.push_back(&dpcubeAlgorithm());
        v.push_back(&ugridAlgorithm());
        v.push_back(&agridAlgorithm());
        // Data-dependent, 2-D (helper "dd1").
        v.push_back(&dawa2dAlgorithm());
        return v;
    }();
    return all;
}

const Algorithm* findAlgorithm(std::string_view id) {
    const auto lower = [](std::string_view s) {
        std::string out(s);
        std::transform(out.begin(), out.end(), out.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return out;
    };
    const std::string wanted = lower(id);
    for (const Algorithm* a : allAlgorithms()) {
        if (lower(a->info().id) == wanted) {
            return a;
        }
    }
    return nullptr;
}

}  // namespace dpx
