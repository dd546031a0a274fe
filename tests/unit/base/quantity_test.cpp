#include "core/base/quantity.hpp"

#include <catch2/catch.hpp>

using namespace capsim;

TEST_CASE("quantities parse as Kubernetes does", "[base][quantity]")
{
  CHECK(*parse_quantity_milli("500m") == 500);
  CHECK(*parse_quantity_milli("2") == 2000);
  CHECK(*parse_quantity_milli("0.1") == 100);
  CHECK(*parse_quantity_milli("1.5") == 1500);
  CHECK(*parse_quantity_milli("100u") == 1); // rounds up
  CHECK(*parse_quantity("1Gi") == 1073741824);
  CHECK(*parse_quantity("1.5Gi") == 1610612736);
  CHECK(*parse_quantity("129M") == 129000000);
  CHECK(*parse_quantity("1e3") == 1000);
  CHECK(*parse_quantity("1E3") == 1000);
  CHECK(*parse_quantity("128974848") == 128974848);
  CHECK(*parse_quantity("1500m") == 2);
  CHECK(*parse_quantity("10Ki") == 10240);
  CHECK(*parse_quantity("+5") == 5);
}

TEST_CASE("bad quantities are refused with a reason", "[base][quantity]")
{
  CHECK_FALSE(parse_quantity("-1Gi").ok());
  CHECK(parse_quantity("-1Gi").error().find("negative") != std::string::npos);
  CHECK_FALSE(parse_quantity("").ok());
  CHECK_FALSE(parse_quantity("abc").ok());
  CHECK_FALSE(parse_quantity("1Gb").ok());
  CHECK_FALSE(parse_quantity("1e").ok());
  CHECK_FALSE(parse_quantity("99999999999999999999Ei").ok());
  CHECK_FALSE(parse_quantity_milli("9223372036854775807").ok());
  CHECK_FALSE(parse_quantity("1e999").ok());
}

TEST_CASE("durations parse in Go syntax plus days and Never", "[base][duration]")
{
  CHECK(*parse_duration("90s") == 90 * k_second);
  CHECK(*parse_duration("1h30m") == 90 * k_minute);
  CHECK(*parse_duration("500ms") == 500);
  CHECK(*parse_duration("7d") == 7 * k_day);
  CHECK(*parse_duration("1.5h") == 90 * k_minute);
  CHECK(*parse_duration("0s") == 0);
  CHECK(*parse_duration("0") == 0);
  CHECK(*parse_duration("Never", true) == k_never);
  CHECK_FALSE(parse_duration("Never").ok());
  CHECK_FALSE(parse_duration("-5m").ok());
  CHECK_FALSE(parse_duration("5").ok());
  CHECK_FALSE(parse_duration("5x").ok());
  CHECK_FALSE(parse_duration("").ok());
  CHECK(format_duration(90 * k_second) == "1m30s");
  CHECK(format_duration(26 * k_hour) == "1d2h");
}
