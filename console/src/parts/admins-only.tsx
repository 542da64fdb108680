// What a member sees at an address that only the relay's admins use (a link shared by an admin, a typed address):
// a plain statement of why there is nothing here, rather than a refusal from the API or an empty page.
import { linkTo } from '../router.ts';

export function AdminsOnly({ title, what }: { title: string; what: string }) {
  return (
    <main id="main">
      <h1>{title}</h1>
      <section class="card plain admins-only" aria-labelledby="admins-only-head">
        <h2 id="admins-only-head">For admins only</h2>
        <p>{what} are for this relay's admins. You are signed in as a member; an admin can change your role.</p>
        <p>
          <a {...linkTo('/')}>Back to your sessions</a>
        </p>
      </section>
    </main>
  );
}
