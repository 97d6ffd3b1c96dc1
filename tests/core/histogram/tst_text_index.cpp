// The flat index of a Binner's text categories (core/histogram/text_index.h). Reference:
// std::unordered_map<std::string, bin> (what the Binner used before) on random and adversarial
// keys — every lookup must give the same bin or the same "absent"; and a Binner's bins and report
// on such values, compared with a count written out here with std::map.
#include <QTest>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/histogram/dataset.h"
#include "core/histogram/text_index.h"

using namespace dpx;

namespace {

// Keys of every length 0…40 that differ only in one byte, in the middle or at either end, the
// shapes a hash reading the first and last bytes could confuse; bytes 0x00 and 0xFF included.
std::vector<std::string> adversarialKeys() {
    std::vector<std::string> keys;
    for (std::size_t n = 0; n <= 40; ++n) {
        const std::string base(n, 'a');
        keys.push_back(base);
        for (std::size_t at : {std::size_t{0}, n / 2, n == 0 ? 0 : n - 1, n / 3}) {
            if (at >= n) {
                continue;
            }
            for (char c : {'b', '\0', '\xFF', 'A'}) {
                std::string k = base;
                k[at] = c;
                keys.push_back(k);
            }
        }
    }
    // Prefixes of one another, and the same bytes in other orders.
    for (std::size_t n = 1; n <= 24; ++n) {
        keys.push_back(std::string("0123456789abcdefghijklmnopqrstuvwxyz").substr(0, n));
        keys.push_back(std::string("zyxwvutsrqponmlkjihgfedcba9876543210").substr(0, n));
    }
    return keys;
}

std::string randomKey(std::mt19937_64& rng) {
    std::uniform_int_distribution<int> len(0, 30), byte(0, 255), small(0, 3);
    const int n = small(rng) == 0 ? len(rng) : len(rng) % 4;
    std::string s;
    for (int i = 0; i < n; ++i) {
        // Mostly a small alphabet, so that random keys collide and repeat.
        s += small(rng) == 0 ? static_cast<char>(byte(rng)) : static_cast<char>('a' + small(rng));
    }
    return s;
}

}  // namespace

class TestTextIndex : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void emptyIndex();
    void sameAsUnorderedMap();
    void growsToManyKeys();
    void binnerSameCounts();
};

void TestTextIndex::emptyIndex() {
    const std::vector<std::string> keys;
    const TextIndex index;
    QCOMPARE(index.size(), std::size_t{0});
    QCOMPARE(index.find("", keys), TextIndex::kNone);
    QCOMPARE(index.find("a", keys), TextIndex::kNone);
}

void TestTextIndex::sameAsUnorderedMap() {
    // Insert the adversarial keys and random ones in a random order; look up all of them and
    // other random texts after every insert batch.
    std::mt19937_64 rng(19);
    std::vector<std::string> pool = adversarialKeys();
    for (int i = 0; i < 3000; ++i) {
        pool.push_back(randomKey(rng));
    }
    std::shuffle(pool.begin(), pool.end(), rng);
    TextIndex index;
    std::vector<std::string> keys;
    std::unordered_map<std::string, std::uint32_t> reference;
    std::size_t checked = 0;
    for (std::size_t i = 0; i < pool.size(); ++i) {
        const std::string& s = pool[i];
        const auto it = reference.find(s);
        const std::uint32_t got = index.find(s, keys);
        QCOMPARE(got, it == reference.end() ? TextIndex::kNone : it->second);
        if (it == reference.end()) {
            const auto bin = static_cast<std::uint32_t>(keys.size());
            index.insert(s, bin);
            keys.push_back(s);
            reference.emplace(s, bin);
        }
        if (i % 97 == 0) {
            for (const std::string& t : pool) {
                const auto r = reference.find(t);
                QCOMPARE(index.find(t, keys), r == reference.end() ? TextIndex::kNone : r->second);
                ++checked;
            }
        }
    }
    QCOMPARE(index.size(), reference.size());
    for (int i = 0; i < 20000; ++i) {
        const std::string t = randomKey(rng);
        const auto r = reference.find(t);
        QCOMPARE(index.find(t, keys), r == reference.end() ? TextIndex::kNone : r->second);
    }
    QVERIFY(checked > 0);
}

void TestTextIndex::growsToManyKeys() {
    // kMaxBins keys (the most a Binner takes): every one found at its bin, near misses not.
    TextIndex index;
    std::vector<std::string> keys;
    for (std::int64_t i = 0; i < kMaxBins; ++i) {
        keys.push_back("v" + std::to_string(i));
        index.insert(keys.back(), static_cast<std::uint32_t>(i));
    }
    QCOMPARE(index.size(), static_cast<std::size_t>(kMaxBins));
    for (std::int64_t i = 0; i < kMaxBins; ++i) {
        QCOMPARE(index.find(keys[static_cast<std::size_t>(i)], keys),
                 static_cast<std::uint32_t>(i));
        QCOMPARE(index.find("w" + std::to_string(i), keys), TextIndex::kNone);
        QCOMPARE(index.find("v" + std::to_string(i) + " ", keys), TextIndex::kNone);
    }
    // The hash spreads these keys: the probe from a key's home slot stays short on average
    // (linear probing at load ≤ 1/2 expects about 1.5 probes per hit).
    std::map<std::uint32_t, int> tags;
    for (const std::string& k : keys) {
        ++tags[static_cast<std::uint32_t>(TextIndex::hash(k) ^ (TextIndex::hash(k) >> 32))];
    }
    QVERIFY(tags.size() > keys.size() - 10);
}

void TestTextIndex::binnerSameCounts() {
    // A fixed category list (drop, other) and categories from the data, over adversarial and
    // random values: each value's bin and the counts as a std::map count gives them.
    std::mt19937_64 rng(5);
    std::vector<std::string> values = adversarialKeys();
    for (int i = 0; i < 5000; ++i) {
        values.push_back(randomKey(rng));
    }
    std::shuffle(values.begin(), values.end(), rng);
    std::vector<std::string> list;
    for (const std::string& v : adversarialKeys()) {
        if (!v.empty() && v.find(',') == std::string::npos &&
            std::find(list.begin(), list.end(), v) == list.end() && list.size() < 60) {
            list.push_back(v);
        }
    }
    for (UnknownCategory unknown : {UnknownCategory::Drop, UnknownCategory::Other}) {
        Binning b;
        b.kind = BinningKind::Categories;
        b.categories = list;
        b.unknown = unknown;
        auto binner = Binner::create(b, ColumnKind::Text).value();
        std::map<std::string, std::int64_t> expect;
        std::int64_t missing = 0, unknownCount = 0;
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::string& v = values[i];
            const std::size_t bin = binner.binTextOrFail(v, static_cast<std::int64_t>(i + 1));
            const auto at = std::find(list.begin(), list.end(), v);
            if (v.empty()) {
                ++missing;
                QCOMPARE(bin, Binner::kNotCounted);
            } else if (at != list.end()) {
                QCOMPARE(bin, static_cast<std::size_t>(at - list.begin()));
            } else {
                ++unknownCount;
                QCOMPARE(bin, unknown == UnknownCategory::Drop ? Binner::kNotCounted : list.size());
            }
        }
        QCOMPARE(binner.report().missing, missing);
        QCOMPARE(unknown == UnknownCategory::Drop ? binner.report().unknownCategories
                                                  : binner.report().otherCategories,
                 unknownCount);
    }
    // Categories from the data, in two binners merged: bins in order of first appearance.
    Binning b;
    b.kind = BinningKind::Categories;
    b.order = CategoryOrder::FirstSeen;
    auto first = Binner::create(b, ColumnKind::Text).value();
    auto second = first;
    std::vector<std::string> order;
    std::map<std::string, std::int64_t> count;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::string& v = values[i];
        Binner& target = i < values.size() / 2 ? first : second;
        QVERIFY(static_cast<bool>(target.addText(v, static_cast<std::int64_t>(i + 1))));
        if (!v.empty()) {
            if (count[v]++ == 0) {
                order.push_back(v);
            }
        }
    }
    QVERIFY(static_cast<bool>(first.merge(second)));
    const auto h = first.finish().value();
    QCOMPARE(h.histogram.labels().size(), order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        QCOMPARE(h.histogram.labels()[i], order[i]);
        QCOMPARE(static_cast<std::int64_t>(h.histogram.counts()[i]), count[order[i]]);
    }
}

QTEST_APPLESS_MAIN(TestTextIndex)
#include "tst_text_index.moc"
