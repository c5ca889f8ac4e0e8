// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/firmware/sbi_pmu: read-only view of what sbi_pmu_probe() found, one
 * value per file (Documentation/ABI/testing/sysfs-firmware-sbi-pmu).
 */

#include <linux/bitops.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "sbi_pmu_decode.h"
#include "sbi_pmu_info.h"

static struct kobject *top_kobj;
static struct kobject *counters_kobj;
static struct kobject *events_kobj;
static struct kobject **ctr_kobjs;

/* events/: one attribute per standard event, made at load time. */
struct sbi_pmu_event_attr {
	struct kobj_attribute attr;
	unsigned int ev;
};

static struct sbi_pmu_event_attr *ev_attrs;
static struct attribute **ev_attr_ptrs;
static struct attribute_group ev_group;

/* --- top level --- */

static ssize_t sbi_spec_version_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lu.%lu\n",
			  sbi_pmu_version_major(sbi_pmu.spec_version),
			  sbi_pmu_version_minor(sbi_pmu.spec_version));
}

static ssize_t impl_id_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%lu\n", sbi_pmu.impl_id);
}

static ssize_t impl_name_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", sbi_pmu_impl_name(sbi_pmu.impl_id));
}

static ssize_t impl_version_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%lx\n", sbi_pmu.impl_version);
}

static ssize_t num_counters_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", sbi_pmu.num_counters);
}

static ssize_t num_hw_counters_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", sbi_pmu.num_hw_counters);
}

static ssize_t num_fw_counters_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", sbi_pmu.num_fw_counters);
}

static ssize_t snapshot_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", sbi_pmu_feature_name(sbi_pmu.snapshot));
}

static ssize_t event_info_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", sbi_pmu_feature_name(sbi_pmu.event_info));
}

static struct kobj_attribute top_attrs[] = {
	__ATTR_RO(sbi_spec_version),
	__ATTR_RO(impl_id),
	__ATTR_RO(impl_name),
	__ATTR_RO(impl_version),
	__ATTR_RO(num_counters),
	__ATTR_RO(num_hw_counters),
	__ATTR_RO(num_fw_counters),
	__ATTR_RO(snapshot),
	__ATTR_RO(event_info),
};

static struct attribute *top_attr_ptrs[] = {
	&top_attrs[0].attr, &top_attrs[1].attr, &top_attrs[2].attr,
	&top_attrs[3].attr, &top_attrs[4].attr, &top_attrs[5].attr,
	&top_attrs[6].attr, &top_attrs[7].attr, &top_attrs[8].attr,
	NULL,
};

static const struct attribute_group top_group = {
	.attrs = top_attr_ptrs,
};

/* --- counters/<idx>/ --- */

struct sbi_pmu_ctr_kobj {
	struct kobject kobj;
	unsigned int idx;
};

static void ctr_desc(struct kobject *kobj, struct sbi_pmu_ctr_desc *desc,
		     unsigned long *info)
{
	unsigned int idx = container_of(kobj, struct sbi_pmu_ctr_kobj, kobj)->idx;

	*info = sbi_pmu.ctr_info[idx];
	sbi_pmu_decode_ctr_info(*info, desc);
}

static ssize_t type_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct sbi_pmu_ctr_desc d;
	unsigned long info;

	ctr_desc(kobj, &d, &info);
	return sysfs_emit(buf, "%s\n", d.firmware ? "firmware" : "hardware");
}

static ssize_t info_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct sbi_pmu_ctr_desc d;
	unsigned long info;

	ctr_desc(kobj, &d, &info);
	return sysfs_emit(buf, "0x%lx\n", info);
}

static ssize_t csr_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	struct sbi_pmu_ctr_desc d;
	unsigned long info;

	ctr_desc(kobj, &d, &info);
	return sysfs_emit(buf, "0x%x\n", d.csr);
}

static ssize_t width_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct sbi_pmu_ctr_desc d;
	unsigned long info;

	ctr_desc(kobj, &d, &info);
	return sysfs_emit(buf, "%u\n", d.width);
}

static struct kobj_attribute ctr_type_attr = __ATTR_RO(type);
static struct kobj_attribute ctr_info_attr = __ATTR_RO(info);
static struct kobj_attribute ctr_csr_attr = __ATTR_RO(csr);
static struct kobj_attribute ctr_width_attr = __ATTR_RO(width);

static struct attribute *ctr_attrs[] = {
	&ctr_type_attr.attr,
	&ctr_info_attr.attr,
	&ctr_csr_attr.attr,
	&ctr_width_attr.attr,
	NULL,
};

/* The spec says csr and width mean nothing for a firmware counter: hide them. */
static umode_t ctr_attr_visible(struct kobject *kobj, struct attribute *a,
				int n)
{
	struct sbi_pmu_ctr_desc d;
	unsigned long info;

	ctr_desc(kobj, &d, &info);
	if (d.firmware && (a == &ctr_csr_attr.attr || a == &ctr_width_attr.attr))
		return 0;
	return a->mode;
}

static const struct attribute_group ctr_group = {
	.attrs = ctr_attrs,
	.is_visible = ctr_attr_visible,
};

static const struct attribute_group *ctr_groups[] = {
	&ctr_group,
	NULL,
};

static void ctr_kobj_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct sbi_pmu_ctr_kobj, kobj));
}

static const struct kobj_type ctr_ktype = {
	.release = ctr_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = ctr_groups,
};

static int counters_init(void)
{
	struct sbi_pmu_ctr_kobj *c;
	unsigned int i;
	int err;

	counters_kobj = kobject_create_and_add("counters", top_kobj);
	if (!counters_kobj)
		return -ENOMEM;
	ctr_kobjs = kcalloc(sbi_pmu.num_counters, sizeof(*ctr_kobjs), GFP_KERNEL);
	if (!ctr_kobjs)
		return -ENOMEM;

	for_each_set_bit(i, sbi_pmu.ctr_valid, sbi_pmu.num_counters) {
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		c->idx = i;
		err = kobject_init_and_add(&c->kobj, &ctr_ktype, counters_kobj,
					   "%u", i);
		if (err) {
			/* The release callback frees c. */
			kobject_put(&c->kobj);
			return err;
		}
		ctr_kobjs[i] = &c->kobj;
	}
	return 0;
}

/* --- events/ (only when the firmware answers event_get_info) --- */

static ssize_t event_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	unsigned int ev = container_of(attr, struct sbi_pmu_event_attr, attr)->ev;

	return sysfs_emit(buf, "%d\n", test_bit(ev, sbi_pmu.ev_supported));
}

static int events_init(void)
{
	unsigned int i, n = sbi_pmu_num_std_events;

	if (sbi_pmu.event_info != SBI_PMU_FEAT_SUPPORTED)
		return 0;

	ev_attrs = kcalloc(n, sizeof(*ev_attrs), GFP_KERNEL);
	ev_attr_ptrs = kcalloc(n + 1, sizeof(*ev_attr_ptrs), GFP_KERNEL);
	if (!ev_attrs || !ev_attr_ptrs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		sysfs_attr_init(&ev_attrs[i].attr.attr);
		ev_attrs[i].attr.attr.name = sbi_pmu_std_events[i].name;
		ev_attrs[i].attr.attr.mode = 0444;
		ev_attrs[i].attr.show = event_show;
		ev_attrs[i].ev = i;
		ev_attr_ptrs[i] = &ev_attrs[i].attr.attr;
	}
	ev_group.attrs = ev_attr_ptrs;

	events_kobj = kobject_create_and_add("events", top_kobj);
	if (!events_kobj)
		return -ENOMEM;
	return sysfs_create_group(events_kobj, &ev_group);
}

void sbi_pmu_sysfs_exit(void)
{
	unsigned int i;

	if (events_kobj) {
		sysfs_remove_group(events_kobj, &ev_group);
		kobject_put(events_kobj);
		events_kobj = NULL;
	}
	kfree(ev_attr_ptrs);
	kfree(ev_attrs);
	ev_attr_ptrs = NULL;
	ev_attrs = NULL;

	if (ctr_kobjs) {
		for (i = 0; i < sbi_pmu.num_counters; i++)
			kobject_put(ctr_kobjs[i]);
		kfree(ctr_kobjs);
		ctr_kobjs = NULL;
	}
	kobject_put(counters_kobj);
	counters_kobj = NULL;

	if (top_kobj) {
		sysfs_remove_group(top_kobj, &top_group);
		kobject_put(top_kobj);
		top_kobj = NULL;
	}
}

int sbi_pmu_sysfs_init(void)
{
	int err;

	top_kobj = kobject_create_and_add("sbi_pmu", firmware_kobj);
	if (!top_kobj)
		return -ENOMEM;
	err = sysfs_create_group(top_kobj, &top_group);
	if (err) {
		kobject_put(top_kobj);
		top_kobj = NULL;
		return err;
	}
	err = counters_init();
	if (!err)
		err = events_init();
	if (err)
		sbi_pmu_sysfs_exit();
	return err;
}
