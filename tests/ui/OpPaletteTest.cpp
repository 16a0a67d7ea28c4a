#include <gtest/gtest.h>

#include <set>

#include "OpPalette.h"

using namespace pipescope;

TEST(OpPalette, EveryKindHasADistinctColourAndALabel) {
  std::set<QRgb> colours;
  for (int k = 0; k < kOpKindCount; ++k) {
    const auto kind = static_cast<OpKind>(k);
    colours.insert(ui::opKindColor(kind).rgb());
    EXPECT_FALSE(ui::opKindLabel(kind).isEmpty()) << k;
    EXPECT_NE(ui::waitColor(kind).rgb(), ui::opKindColor(kind).rgb()) << k;
  }
  EXPECT_EQ(colours.size(), static_cast<std::size_t>(kOpKindCount));
}
