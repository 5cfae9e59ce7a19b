export default function MonitorsPage() {
  return null;
}
