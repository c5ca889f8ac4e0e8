// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the SBI PMU decoding helpers (sbi_pmu_decode.h). Expected
 * values are built by hand from the field layouts in the SBI PMU chapter,
 * and cross-checked against the kernel's own union sbi_pmu_ctr_info.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "sbi_pmu_decode.h"

/* counter_info word from its spec fields: csr[11:0], width-1 at [17:12]. */
static unsigned long hw_info(unsigned int csr, unsigned int bits)
{
	return ((unsigned long)(bits - 1) << 12) | csr;
}

static void ctr_info_hardware(struct kunit *test)
{
	static const struct {
		unsigned int csr, bits;
	} cases[] = {
		{ 0xc00, 64 },	/* cycle */
		{ 0xc02, 64 },	/* instret */
		{ 0xc03, 48 },	/* hpmcounter3, 48 bits */
		{ 0xc1f, 40 },	/* hpmcounter31 */
		{ 0xc05, 1 },	/* smallest width field */
	};
	struct sbi_pmu_ctr_desc d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		sbi_pmu_decode_ctr_info(hw_info(cases[i].csr, cases[i].bits), &d);
		KUNIT_EXPECT_FALSE(test, d.firmware);
		KUNIT_EXPECT_EQ(test, d.csr, cases[i].csr);
		KUNIT_EXPECT_EQ(test, d.width, cases[i].bits);
		KUNIT_EXPECT_FALSE(test, d.reserved_set);
	}

	/* Literal words: 0x3fc00 is cycle/64 bits, 0x2fc03 hpmcounter3/48. */
	sbi_pmu_decode_ctr_info(0x3fc00, &d);
	KUNIT_EXPECT_EQ(test, d.csr, 0xc00);
	KUNIT_EXPECT_EQ(test, d.width, 64);
	sbi_pmu_decode_ctr_info(0x2fc03, &d);
	KUNIT_EXPECT_EQ(test, d.csr, 0xc03);
	KUNIT_EXPECT_EQ(test, d.width, 48);
}

static void ctr_info_firmware(struct kunit *test)
{
	struct sbi_pmu_ctr_desc d;

	/* Type is the top bit of the XLEN-wide word. */
	sbi_pmu_decode_ctr_info(BIT(BITS_PER_LONG - 1), &d);
	KUNIT_EXPECT_TRUE(test, d.firmware);
	KUNIT_EXPECT_EQ(test, d.csr, 0);
	KUNIT_EXPECT_EQ(test, d.width, 0);
	KUNIT_EXPECT_FALSE(test, d.reserved_set);

	/* CSR and width must be ignored for firmware counters. */
	sbi_pmu_decode_ctr_info(BIT(BITS_PER_LONG - 1) | hw_info(0xc00, 64), &d);
	KUNIT_EXPECT_TRUE(test, d.firmware);
	KUNIT_EXPECT_EQ(test, d.csr, 0);
	KUNIT_EXPECT_EQ(test, d.width, 0);
}

static void ctr_info_reserved(struct kunit *test)
{
	struct sbi_pmu_ctr_desc d;

	sbi_pmu_decode_ctr_info(BIT(18) | hw_info(0xc03, 64), &d);
	KUNIT_EXPECT_TRUE(test, d.reserved_set);
	KUNIT_EXPECT_EQ(test, d.csr, 0xc03);
	KUNIT_EXPECT_EQ(test, d.width, 64);

	sbi_pmu_decode_ctr_info(BIT(BITS_PER_LONG - 2), &d);
	KUNIT_EXPECT_TRUE(test, d.reserved_set);
	KUNIT_EXPECT_FALSE(test, d.firmware);
}

/* Our masks must agree with the kernel's bitfield view of the same word. */
static void ctr_info_matches_kernel_union(struct kunit *test)
{
	static const unsigned long words[] = {
		0x3fc00, 0x2fc03, 0x1fc1f, 0xc05, 0x3ffff,
		BIT(BITS_PER_LONG - 1), BIT(BITS_PER_LONG - 1) | 0x3fc00,
	};
	unsigned long type, csr, width;
	union sbi_pmu_ctr_info u;
	struct sbi_pmu_ctr_desc d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		u.value = words[i];
		sbi_pmu_decode_ctr_info(words[i], &d);
		/* Bit-fields cannot go through typeof(): copy them out. */
		type = u.type;
		csr = u.csr;
		width = u.width;
		KUNIT_EXPECT_EQ(test, d.firmware, type == SBI_PMU_CTR_TYPE_FW);
		if (!d.firmware) {
			KUNIT_EXPECT_EQ(test, (unsigned long)d.csr, csr);
			KUNIT_EXPECT_EQ(test, (unsigned long)d.width, width + 1);
		}
	}
}

static void csr_is_counter(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sbi_pmu_csr_is_counter(0xc00));
	KUNIT_EXPECT_TRUE(test, sbi_pmu_csr_is_counter(0xc02));
	KUNIT_EXPECT_TRUE(test, sbi_pmu_csr_is_counter(0xc1f));
	KUNIT_EXPECT_TRUE(test, sbi_pmu_csr_is_counter(0xc80));
	KUNIT_EXPECT_TRUE(test, sbi_pmu_csr_is_counter(0xc9f));
	KUNIT_EXPECT_FALSE(test, sbi_pmu_csr_is_counter(0xbff));
	KUNIT_EXPECT_FALSE(test, sbi_pmu_csr_is_counter(0xc20));
	KUNIT_EXPECT_FALSE(test, sbi_pmu_csr_is_counter(0xca0));
	KUNIT_EXPECT_FALSE(test, sbi_pmu_csr_is_counter(0xb00)); /* mcycle */
}

static void version_decode(struct kunit *test)
{
	/* major[30:24] minor[23:0]; bit 31 is reserved and ignored. */
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_major(0x02000000), 2);
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_minor(0x02000000), 0);
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_major(0x00000003), 0);
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_minor(0x00000003), 3);
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_major(0x01000002), 1);
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_minor(0x01000002), 2);
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_major(0x82000000), 2);
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_major(0x7fffffff), 127);
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_minor(0x7fffffff), 0xffffff);
	/* The kernel's encoding of legacy SBI is 0.1. */
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_major(SBI_SPEC_VERSION_DEFAULT), 0);
	KUNIT_EXPECT_EQ(test, sbi_pmu_version_minor(SBI_SPEC_VERSION_DEFAULT), 1);
	/* And it must match the kernel's encoder. */
	KUNIT_EXPECT_EQ(test, sbi_mk_version(2, 0), 0x02000000UL);
}

static void version_compare(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sbi_pmu_version_at_least(0x02000000, 2, 0));
	KUNIT_EXPECT_FALSE(test, sbi_pmu_version_at_least(0x02000000, 3, 0));
	KUNIT_EXPECT_TRUE(test, sbi_pmu_version_at_least(0x03000000, 2, 0));
	KUNIT_EXPECT_TRUE(test, sbi_pmu_version_at_least(0x00000003, 0, 3));
	KUNIT_EXPECT_FALSE(test, sbi_pmu_version_at_least(0x00000002, 0, 3));
	KUNIT_EXPECT_TRUE(test, sbi_pmu_version_at_least(0x01000000, 0, 3));
	KUNIT_EXPECT_FALSE(test, sbi_pmu_version_at_least(0x01000000, 1, 1));
	KUNIT_EXPECT_FALSE(test, sbi_pmu_version_at_least(SBI_SPEC_VERSION_DEFAULT,
							  0, 3));
}

static void err_to_errno(struct kunit *test)
{
	static const struct {
		long sbi;
		int err;
	} cases[] = {
		{ 0, 0 },		/* SBI_SUCCESS */
		{ -1, -EIO },		/* SBI_ERR_FAILED */
		{ -2, -EOPNOTSUPP },	/* SBI_ERR_NOT_SUPPORTED */
		{ -3, -EINVAL },	/* SBI_ERR_INVALID_PARAM */
		{ -4, -EPERM },		/* SBI_ERR_DENIED */
		{ -5, -EFAULT },	/* SBI_ERR_INVALID_ADDRESS */
		{ -6, -EEXIST },	/* SBI_ERR_ALREADY_AVAILABLE */
		{ -7, -EBUSY },		/* SBI_ERR_ALREADY_STARTED */
		{ -8, -EALREADY },	/* SBI_ERR_ALREADY_STOPPED */
		{ -9, -ENXIO },		/* SBI_ERR_NO_SHMEM */
		{ -10, -EINVAL },	/* SBI_ERR_INVALID_STATE */
		{ -11, -ERANGE },	/* SBI_ERR_BAD_RANGE */
		{ -12, -ETIMEDOUT },	/* SBI_ERR_TIMEOUT */
		{ -13, -EIO },		/* SBI_ERR_IO */
		{ -14, -EPERM },	/* SBI_ERR_DENIED_LOCKED */
		{ -15, -EPROTO },	/* not in the spec */
		{ 1, -EPROTO },		/* SBI errors are never positive */
		{ LONG_MIN, -EPROTO },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, sbi_pmu_err_to_errno(cases[i].sbi),
				    cases[i].err, "SBI error %ld", cases[i].sbi);
}

static void impl_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, sbi_pmu_impl_name(0), "BBL");
	KUNIT_EXPECT_STREQ(test, sbi_pmu_impl_name(1), "OpenSBI");
	KUNIT_EXPECT_STREQ(test, sbi_pmu_impl_name(3), "KVM");
	KUNIT_EXPECT_STREQ(test, sbi_pmu_impl_name(4), "RustSBI");
	KUNIT_EXPECT_STREQ(test, sbi_pmu_impl_name(11), "bhyve");
	KUNIT_EXPECT_STREQ(test, sbi_pmu_impl_name(12), "unknown");
	KUNIT_EXPECT_STREQ(test, sbi_pmu_impl_name(ULONG_MAX), "unknown");
}

static void event_idx_encode(struct kunit *test)
{
	/* type[19:16] code[15:0]: firmware event type is 0xf. */
	KUNIT_EXPECT_EQ(test, sbi_pmu_event_idx(SBI_PMU_EVENT_TYPE_HW,
						SBI_PMU_HW_CPU_CYCLES), 0x1);
	KUNIT_EXPECT_EQ(test, sbi_pmu_event_idx(SBI_PMU_EVENT_TYPE_FW,
						SBI_PMU_FW_SET_TIMER), 0xf0005);
	KUNIT_EXPECT_EQ(test, sbi_pmu_event_idx(SBI_PMU_EVENT_TYPE_RAW, 0), 0x20000);
	KUNIT_EXPECT_EQ(test, sbi_pmu_event_idx(0x1f, 0x1ffff), 0xfffff);
}

static void event_info_entry(struct kunit *test)
{
	struct sbi_pmu_event_info_entry e;
	const u8 *b = (const u8 *)&e;

	KUNIT_ASSERT_EQ(test, sizeof(e), 16);
	sbi_pmu_event_info_fill(&e, 0xf0005, 0x1122334455667788ULL);
	/* Word 0 event_idx, word 1 output, words 2-3 event_data, little endian. */
	KUNIT_EXPECT_EQ(test, b[0], 0x05);
	KUNIT_EXPECT_EQ(test, b[1], 0x00);
	KUNIT_EXPECT_EQ(test, b[2], 0x0f);
	KUNIT_EXPECT_EQ(test, b[3], 0x00);
	KUNIT_EXPECT_EQ(test, b[4] | b[5] | b[6] | b[7], 0);
	KUNIT_EXPECT_EQ(test, b[8], 0x88);
	KUNIT_EXPECT_EQ(test, b[15], 0x11);
	KUNIT_EXPECT_FALSE(test, sbi_pmu_event_info_supported(&e));

	e.output = cpu_to_le32(1);
	KUNIT_EXPECT_TRUE(test, sbi_pmu_event_info_supported(&e));
	/* Only bit 0 means "supported"; the other bits are reserved. */
	e.output = cpu_to_le32(0xfffffffe);
	KUNIT_EXPECT_FALSE(test, sbi_pmu_event_info_supported(&e));
}

static struct kunit_case sbi_pmu_decode_cases[] = {
	KUNIT_CASE(ctr_info_hardware),
	KUNIT_CASE(ctr_info_firmware),
	KUNIT_CASE(ctr_info_reserved),
	KUNIT_CASE(ctr_info_matches_kernel_union),
	KUNIT_CASE(csr_is_counter),
	KUNIT_CASE(version_decode),
	KUNIT_CASE(version_compare),
	KUNIT_CASE(err_to_errno),
	KUNIT_CASE(impl_names),
	KUNIT_CASE(event_idx_encode),
	KUNIT_CASE(event_info_entry),
	{}
};

static struct kunit_suite sbi_pmu_decode_suite = {
	.name = "sbi_pmu_decode",
	.test_cases = sbi_pmu_decode_cases,
};

kunit_test_suite(sbi_pmu_decode_suite);

MODULE_DESCRIPTION("KUnit tests for the SBI PMU decoding helpers");
MODULE_LICENSE("GPL");
