// SPDX-License-Identifier: GPL-2.0
// build: -O0
/*
 * Functions with long C++ names, for how reports show them: two whose
 * demangled names are over 200 characters and differ only in the middle
 * (holder<tag<1>, ...>::work and holder<tag<2>, ...>::work), and one long
 * name of its own (lone<...>::run).  By construction work<1> loops 3000
 * times, work<2> 2000 times and run 1000 times, so their counts differ.
 */
#include <map>
#include <string>
#include <utility>
#include <vector>

template <int N> struct tag {
};

namespace a_rather_long_namespace_name_for_elision_tests {
namespace and_a_second_level_that_is_also_long {

typedef std::map<std::string, std::vector<std::pair<int, long>>> big_map;

template <typename A, typename B> struct holder {
	static __attribute__((noinline)) long work(A, const B &, int n)
	{
		long s = 0;

		for (int i = 0; i < n; i++)
			s += i;
		return s;
	}
};

template <typename A> struct lone {
	static __attribute__((noinline)) long run(const A &, int n)
	{
		long s = 0;

		for (int i = 0; i < n; i++)
			s ^= i;
		return s;
	}
};

} // namespace and_a_second_level_that_is_also_long
} // namespace a_rather_long_namespace_name_for_elision_tests

using namespace a_rather_long_namespace_name_for_elision_tests::and_a_second_level_that_is_also_long;

int main()
{
	big_map m;
	std::vector<std::vector<std::string>> v;
	long r = holder<tag<1>, big_map>::work(tag<1>(), m, 3000);

	r += holder<tag<2>, big_map>::work(tag<2>(), m, 2000);
	r += lone<std::vector<std::vector<std::string>>>::run(v, 1000);
	return r == 0;
}
