// The singletons registry.cpp lists (issue #20): one declaration per algorithm, each defined in
// that algorithm's file. Add a line when adding an algorithm.
#pragma once

#include "core/algorithms/algorithm.h"

namespace dpx {

// Strategies answered by least squares (and Uniform): identity.cpp, uniform.cpp,
// hierarchical.cpp (H2, HB, HB2D, QuadTree), privelet.cpp (Privelet, Privelet2D).
const Algorithm& identityAlgorithm();    // "Identity", any dimension
const Algorithm& uniformAlgorithm();     // "Uniform", 1-D and 2-D
const Algorithm& h2Algorithm();          // "H2", 1-D
const Algorithm& hbAlgorithm();          // "HB", 1-D
const Algorithm& priveletAlgorithm();    // "Privelet", 1-D
const Algorithm& hb2dAlgorithm();        // "HB2D", 2-D
const Algorithm& privelet2dAlgorithm();  // "Privelet2D", 2-D
const Algorithm& quadTreeAlgorithm();    // "QuadTree", 2-D

// GreedyH (data-independent, workload-aware) and the DAWA / AHP / MWEM family.
const Algorithm& greedyHAlgorithm();  // greedy_h.cpp (data-independent, workload-aware)
const Algorithm& hdmmAlgorithm();     // hdmm_algorithm.cpp (data-independent, workload-aware;
                                      // the matrix mechanism of core/matrix_mechanism, #23)
const Algorithm& dawaAlgorithm();     // dawa.cpp
const Algorithm& dawa2dAlgorithm();   // dawa.cpp (2-D, Hilbert order)
const Algorithm& ahpAlgorithm();      // ahp.cpp (1-D and 2-D)
const Algorithm& mwemAlgorithm();     // mwem.cpp (1-D and 2-D)

// Partitions and grids: PHP, EFPA, StructureFirst, DPCube, UGrid, AGrid.
const Algorithm& phpAlgorithm();             // "PHP", 1-D
const Algorithm& efpaAlgorithm();            // "EFPA", 1-D
const Algorithm& structureFirstAlgorithm();  // "StructureFirst", 1-D (N public)
const Algorithm& dpcubeAlgorithm();          // "DPCube", 1-D and 2-D
const Algorithm& ugridAlgorithm();           // "UGrid", 2-D (N public)
const Algorithm& agridAlgorithm();           // "AGrid", 2-D (N public)

}  // namespace dpx
